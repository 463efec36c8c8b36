import type { DocumentStore } from '../ports/documents.ts';
import { timeOrderedId } from '../ids.ts';
import { findPage, publicShape, type Page, type Stored } from '../data/entity.ts';
import type { ImpersonationRecord } from './record.ts';

export type AuditEntry = Omit<ImpersonationRecord, 'id' | 'createdAt' | 'error' | 'errorDescription'> &
  Partial<Pick<ImpersonationRecord, 'error' | 'errorDescription'>>;

/** Records written before failures were audited have no error fields. */
function withErrorFields(record: AuditEntry & Pick<ImpersonationRecord, 'id' | 'createdAt'>): ImpersonationRecord {
  return { ...record, error: record.error ?? null, errorDescription: record.errorDescription ?? null };
}

/** Who impersonated whom, when, through which app, for which resource, and who tried and why it failed. Append-only. */
export function createImpersonationAudit(store: DocumentStore) {
  const records = store.collection<Stored<ImpersonationRecord>>('impersonation_audit');
  return {
    async prepare() {
      await records.createIndex({ keys: { userId: 1, createdAt: -1 } });
      await records.createIndex({ keys: { subjectTokenRef: 1 } });
    },
    async record(entry: AuditEntry): Promise<void> {
      // Time-ordered: the audit's id index then grows at its end instead of a page at a random place per record.
      const id = timeOrderedId();
      // Every field written out: a literal keeps them all in the object itself, where spreads would put most of them in
      // a separate property array (24 more bytes a record on the embedded store, whose copy keeps the layout).
      const record: Stored<ImpersonationRecord> = {
        _id: id,
        id,
        type: entry.type,
        subjectTokenRef: entry.subjectTokenRef,
        userId: entry.userId,
        createdBy: entry.createdBy,
        applicationId: entry.applicationId,
        actorUserId: entry.actorUserId,
        resource: entry.resource,
        scope: entry.scope,
        error: entry.error ?? null,
        errorDescription: entry.errorDescription ?? null,
        createdAt: Date.now(),
      };
      await records.insertOne(record);
    },
    async list(page: Page, filter: { userId?: string; subjectTokenRef?: string; applicationId?: string }) {
      const query: Record<string, unknown> = {};
      for (const [field, value] of Object.entries(filter)) if (value) query[field] = value;
      const { items, total } = await findPage(records, query, page, { createdAt: -1, _id: -1 });
      return {
        items: items.map((doc) =>
          withErrorFields(publicShape<AuditEntry & Pick<ImpersonationRecord, 'id' | 'createdAt'>>(doc)),
        ),
        total,
      };
    },
  };
}

export type ImpersonationAudit = ReturnType<typeof createImpersonationAudit>;
