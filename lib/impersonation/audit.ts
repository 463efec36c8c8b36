import type { DocumentStore } from '../ports/documents.ts';
import { newId } from '../ids.ts';
import { findPage, publicShape, type Page, type Stored } from '../data/entity.ts';
import type { ImpersonationRecord } from './record.ts';

export type AuditEntry = Omit<ImpersonationRecord, 'id' | 'createdAt' | 'error' | 'errorDescription'>
  & Partial<Pick<ImpersonationRecord, 'error' | 'errorDescription'>>;

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
      const id = newId();
      const record: ImpersonationRecord = { error: null, errorDescription: null, ...entry, id, createdAt: Date.now() };
      await records.insertOne({ ...record, _id: id });
    },
    async list(page: Page, filter: { userId?: string; subjectTokenRef?: string; applicationId?: string }) {
      const query: Record<string, unknown> = {};
      for (const [field, value] of Object.entries(filter)) if (value) query[field] = value;
      const { items, total } = await findPage(records, query, page, { createdAt: -1, _id: -1 });
      return { items: items.map((doc) => withErrorFields(publicShape<AuditEntry & Pick<ImpersonationRecord, 'id' | 'createdAt'>>(doc))), total };
    },
  };
}

export type ImpersonationAudit = ReturnType<typeof createImpersonationAudit>;
