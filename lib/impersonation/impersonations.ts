import type { DocumentStore, Filter } from '../ports/documents.ts';
import { findPage, type Page, type PageResult, type Stored } from '../data/entity.ts';
import type { Impersonation, ImpersonationStatus } from './record.ts';

/** As stored: the public record without its status (worked out at read time), with what only the service reads. */
type StoredImpersonation = Stored<
  Omit<Impersonation, 'status'> & {
    /** The grant of a userinfo token (its opaque token hangs off it), or null for a JWT. */
    grantId: string | null;
    /** Position in the revocation listing, set when it is revoked. */
    revocationSeq?: number;
  }
>;

export interface ImpersonationFilter {
  userId?: string | undefined;
  applicationId?: string | undefined;
  actorId?: string | undefined;
  /** A status, or `ended`: revoked or expired. */
  status?: ImpersonationStatus | 'ended' | undefined;
}

/** One entry of the revocation listing, in the order revocations committed. */
export interface Revocation {
  impersonationId: string;
  userId: string;
  resource: string | null;
  revokedAt: number;
  expiresAt: number;
  /** Pass it back as `after` to read the revocations that follow. */
  cursor: number;
}

export type NewImpersonation = Omit<Impersonation, 'status' | 'revokedAt'> & { grantId: string | null };

const COUNTER_ID = 'revocations';

function statusOf(doc: StoredImpersonation, now: number): ImpersonationStatus {
  if (doc.revokedAt !== null) return 'revoked';
  return doc.expiresAt > now ? 'active' : 'expired';
}

function present(doc: StoredImpersonation, now: number): Impersonation {
  return {
    id: doc.id,
    userId: doc.userId,
    applicationId: doc.applicationId,
    actorUserId: doc.actorUserId,
    subjectTokenRef: doc.subjectTokenRef,
    reason: doc.reason,
    createdBy: doc.createdBy,
    resource: doc.resource,
    scope: doc.scope,
    issuedAt: doc.issuedAt,
    expiresAt: doc.expiresAt,
    revokedAt: doc.revokedAt,
    status: statusOf(doc, now),
  };
}

function statusFilter(status: ImpersonationStatus | 'ended', now: number): Filter {
  if (status === 'ended') return { $or: [{ revokedAt: { $ne: null } }, { expiresAt: { $lte: now } }] };
  if (status === 'revoked') return { revokedAt: { $ne: null } };
  return { revokedAt: null, expiresAt: status === 'active' ? { $gt: now } : { $lte: now } };
}

/**
 * The impersonations: one per successful exchange, with the token it issued. Revoking one marks it, gives it the
 * next position in the revocation listing and ends the grant of its userinfo token, in one transaction.
 */
export function createImpersonations(
  store: DocumentStore,
  deps: { revokeGrants: (grantIds: string[]) => Promise<void> },
) {
  const records = store.collection<StoredImpersonation>('impersonations');
  const counters = store.collection<{ _id: string; seq: number }>('impersonation_counters');

  return {
    async prepare() {
      await records.createIndex({ keys: { issuedAt: -1 } });
      await records.createIndex({ keys: { userId: 1, issuedAt: -1 } });
      await records.createIndex({ keys: { applicationId: 1, issuedAt: -1 } });
      await records.createIndex({ keys: { actorUserId: 1, issuedAt: -1 } });
      await records.createIndex({ keys: { revocationSeq: 1 }, sparse: true });
    },

    async insert(record: NewImpersonation): Promise<Impersonation> {
      const doc: StoredImpersonation = { _id: record.id, ...record, revokedAt: null };
      await records.insertOne(doc);
      return present(doc, Date.now());
    },

    async findById(id: string): Promise<Impersonation | null> {
      const doc = await records.findOne({ _id: id });
      return doc && present(doc, Date.now());
    },

    async list(page: Page, filter: ImpersonationFilter): Promise<PageResult<Impersonation>> {
      const now = Date.now();
      const query: Filter = {};
      if (filter.userId) query.userId = filter.userId;
      if (filter.applicationId) query.applicationId = filter.applicationId;
      if (filter.actorId) query.actorUserId = filter.actorId;
      if (filter.status) Object.assign(query, statusFilter(filter.status, now));
      const { items, total } = await findPage(records, query, page, { issuedAt: -1, _id: -1 });
      return { items: items.map((doc) => present(doc, now)), total };
    },

    /** Revokes the active impersonations the filter selects; answers those it revoked (not those already ended). */
    async revoke(filter: { id?: string; userId?: string }): Promise<Impersonation[]> {
      return store.transaction(async () => {
        const now = Date.now();
        const query: Filter = { ...statusFilter('active', now) };
        if (filter.id) query._id = filter.id;
        if (filter.userId) query.userId = filter.userId;
        const active = await records.find(query);
        if (active.length === 0) return [];
        // The counter is written by every revocation, so revocations take their positions in the order they commit.
        const counter = await counters.findOneAndUpdate(
          { _id: COUNTER_ID },
          { $inc: { seq: active.length } },
          { upsert: true, returnDocument: 'after' },
        );
        let seq = (counter?.seq ?? active.length) - active.length;
        const revoked: StoredImpersonation[] = [];
        for (const doc of active) {
          seq += 1;
          const result = await records.updateOne(
            { _id: doc._id, revokedAt: null },
            { $set: { revokedAt: now, revocationSeq: seq } },
          );
          if (result.modifiedCount === 1) revoked.push({ ...doc, revokedAt: now, revocationSeq: seq });
        }
        await deps.revokeGrants(revoked.map((doc) => doc.grantId).filter((id) => id !== null));
        return revoked.map((doc) => present(doc, now));
      });
    },

    /**
     * Revocations after the cursor, of tokens for the given audiences, oldest first, and the cursor to read on from.
     * The counter commits with the records it numbers: every revocation up to its value read first is visible, so a
     * page that is not full moves the cursor there, past revocations of other audiences.
     */
    async revocationsAfter(
      after: number,
      audiences: readonly string[],
      limit: number,
    ): Promise<{ items: Revocation[]; next: number }> {
      const latest = (await counters.findOne({ _id: COUNTER_ID }))?.seq ?? 0;
      if (audiences.length === 0 || latest <= after) return { items: [], next: Math.max(after, latest) };
      const docs = await records.find(
        { revocationSeq: { $gt: after, $lte: latest }, resource: { $in: [...audiences] } },
        { sort: { revocationSeq: 1 }, limit },
      );
      const items = docs.map((doc) => ({
        impersonationId: doc.id,
        userId: doc.userId,
        resource: doc.resource,
        revokedAt: doc.revokedAt ?? 0,
        expiresAt: doc.expiresAt,
        cursor: doc.revocationSeq ?? 0,
      }));
      return { items, next: items.length < limit ? latest : items[items.length - 1]!.cursor };
    },
  };
}

export type Impersonations = ReturnType<typeof createImpersonations>;
