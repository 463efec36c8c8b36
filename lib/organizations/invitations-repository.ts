import type { DocumentStore } from '../ports/documents.ts';
import { createEntityRepository, type Page, type PageResult } from '../data/entity.ts';
import type { InvitationStatus } from './types.ts';

/** As stored; the API shape (organization roles, `Expired` once past `expiresAt`) is the library's. */
export interface StoredInvitation {
  id: string;
  inviterId: string | null;
  /** Email address of the invitee, lower-cased. */
  invitee: string;
  acceptedUserId: string | null;
  organizationId: string;
  status: InvitationStatus;
  organizationRoleIds: string[];
  createdAt: number;
  updatedAt: number;
  /** Epoch milliseconds. */
  expiresAt: number;
}

export interface InvitationFilter {
  organizationId?: string;
  inviterId?: string;
  invitee?: string;
}

export function createOrganizationInvitationsRepository(store: DocumentStore) {
  // `pendingKey` (organization and invitee) exists only while an invitation is pending and unexpired: a unique
  // index on it keeps two concurrent creations from both leaving a pending invitation.
  const { collection, present, operations } = createEntityRepository<StoredInvitation, { pendingKey: string }>(
    store,
    'organization_invitations',
    { searchFields: ['invitee'], hidden: ['pendingKey'] },
  );
  const pendingKeyOf = (invitation: Pick<StoredInvitation, 'organizationId' | 'invitee'>) =>
    `${invitation.organizationId}\n${invitation.invitee}`;

  return {
    /** Inserts a pending invitation; a DuplicateKeyError when one is already pending for the same invitee. */
    async insertPending(invitation: StoredInvitation, now: number): Promise<StoredInvitation> {
      const pendingKey = pendingKeyOf(invitation);
      // An expired pending invitation no longer holds its place.
      await collection.updateMany({ pendingKey, expiresAt: { $lte: now } }, { $unset: { pendingKey: '' } });
      return operations.insert(invitation, { pendingKey });
    },
    findById: operations.findById,
    delete: operations.delete,
    async prepare() {
      await collection.createIndex({ keys: { organizationId: 1, invitee: 1 } });
      await collection.createIndex({ keys: { createdAt: 1 } });
      await collection.createIndex({ keys: { pendingKey: 1 }, unique: true, sparse: true });
    },
    list(page: Page, filter: InvitationFilter): Promise<PageResult<StoredInvitation>> {
      const query = Object.fromEntries(Object.entries(filter).filter(([, value]) => value !== undefined));
      return operations.list(page, undefined, query);
    },
    async countLivePending(organizationId: string, invitee: string, now: number): Promise<number> {
      return collection.countDocuments({ organizationId, invitee, status: 'Pending', expiresAt: { $gt: now } });
    },
    /** Moves a still-pending, unexpired invitation on; `null` when another request got there first. */
    async settle(id: string, changes: Pick<StoredInvitation, 'status' | 'acceptedUserId'>, now: number) {
      const doc = await collection.findOneAndUpdate(
        { _id: id, status: 'Pending', expiresAt: { $gt: now } },
        { $set: { ...changes, updatedAt: now }, $unset: { pendingKey: '' } },
        { returnDocument: 'after' },
      );
      return doc ? present(doc) : null;
    },
    async deleteOfOrganization(organizationId: string): Promise<void> {
      await collection.deleteMany({ organizationId });
    },
  };
}

export type OrganizationInvitationsRepository = ReturnType<typeof createOrganizationInvitationsRepository>;
