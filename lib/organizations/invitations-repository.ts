import type { DocumentStore } from '../ports/documents.ts';
import { findPage, publicShape, type Page, type PageResult, type Stored } from '../data/entity.ts';

export const INVITATION_STATUSES = ['Pending', 'Accepted', 'Expired', 'Revoked'] as const;
export type InvitationStatus = (typeof INVITATION_STATUSES)[number];

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
  const invitations = store.collection<Stored<StoredInvitation>>('organization_invitations');
  const present = (doc: Stored<StoredInvitation>) => publicShape<StoredInvitation>(doc);

  return {
    async prepare() {
      await invitations.createIndex({ keys: { organizationId: 1, invitee: 1 } });
      await invitations.createIndex({ keys: { createdAt: 1 } });
    },
    async insert(invitation: StoredInvitation): Promise<StoredInvitation> {
      await invitations.insertOne({ ...invitation, _id: invitation.id });
      return invitation;
    },
    async findById(id: string) {
      const doc = await invitations.findOne({ _id: id });
      return doc ? present(doc) : null;
    },
    async list(page: Page, filter: InvitationFilter): Promise<PageResult<StoredInvitation>> {
      const query = Object.fromEntries(Object.entries(filter).filter(([, value]) => value !== undefined));
      const { items, total } = await findPage(invitations, query, page);
      return { items: items.map(present), total };
    },
    async countLivePending(organizationId: string, invitee: string, now: number): Promise<number> {
      return invitations.countDocuments({ organizationId, invitee, status: 'Pending', expiresAt: { $gt: now } });
    },
    /** Moves a still-pending, unexpired invitation on; `null` when another request got there first. */
    async settle(id: string, changes: Pick<StoredInvitation, 'status' | 'acceptedUserId'>, now: number) {
      const doc = await invitations.findOneAndUpdate(
        { _id: id, status: 'Pending', expiresAt: { $gt: now } },
        { $set: { ...changes, updatedAt: now } },
        { returnDocument: 'after' },
      );
      return doc ? present(doc) : null;
    },
    async delete(id: string) {
      const doc = await invitations.findOneAndDelete({ _id: id });
      return doc ? present(doc) : null;
    },
    async deleteOfOrganization(organizationId: string): Promise<void> {
      await invitations.deleteMany({ organizationId });
    },
  };
}

export type OrganizationInvitationsRepository = ReturnType<typeof createOrganizationInvitationsRepository>;
