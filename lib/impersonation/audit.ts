import type { DocumentStore } from '../ports/documents.ts';
import { newId } from '../ids.ts';
import { findPage, publicShape, type Page, type Stored } from '../data/entity.ts';

export interface ImpersonationRecord {
  id: string;
  type: 'SubjectToken.Created' | 'TokenExchange.Succeeded';
  /** Non-secret reference shared by a token's creation and its exchange. */
  subjectTokenRef: string;
  /** The impersonated user. */
  userId: string;
  /** The management client that created the subject token. */
  createdBy: string;
  /** The application that exchanged it. */
  applicationId: string | null;
  /** The acting user, when an actor token was presented. */
  actorUserId: string | null;
  resource: string | null;
  scope: string | null;
  createdAt: number;
}

/** Who impersonated whom, when, through which app, for which resource. Append-only. */
export function createImpersonationAudit(store: DocumentStore) {
  const records = store.collection<Stored<ImpersonationRecord>>('impersonation_audit');
  return {
    async prepare() {
      await records.createIndex({ keys: { userId: 1, createdAt: -1 } });
      await records.createIndex({ keys: { subjectTokenRef: 1 } });
    },
    async record(entry: Omit<ImpersonationRecord, 'id' | 'createdAt'>): Promise<void> {
      const id = newId();
      await records.insertOne({ ...entry, id, _id: id, createdAt: Date.now() } as Stored<ImpersonationRecord>);
    },
    async list(page: Page, filter: { userId?: string; subjectTokenRef?: string; applicationId?: string }) {
      const query: Record<string, unknown> = {};
      for (const [field, value] of Object.entries(filter)) if (value) query[field] = value;
      const { items, total } = await findPage(records, query, page, { createdAt: -1, _id: -1 });
      return { items: items.map((doc) => publicShape<ImpersonationRecord>(doc)), total };
    },
  };
}

export type ImpersonationAudit = ReturnType<typeof createImpersonationAudit>;
