import type { DocumentStore } from '../ports/documents.ts';
import { createEntityRepository, type Stored } from '../data/entity.ts';
import type { SignInExperience } from './schema.ts';

/** The stored settings and the revision they were written at, for compare-and-set updates. */
export interface StoredSignInExperience {
  settings: SignInExperience;
  revision: number;
}

const ID = 'default';

/** The one sign-in experience document (`_id: 'default'`, as Logto's single row); absent until first written. */
export function createSignInExperienceRepository(store: DocumentStore) {
  const { collection, present } = createEntityRepository<SignInExperience, { revision: number }>(
    store,
    'sign_in_experiences',
    { searchFields: [], hidden: ['revision'] },
  );

  return {
    async prepare(): Promise<void> {},
    async find(): Promise<StoredSignInExperience | null> {
      const doc = await collection.findOne({ _id: ID });
      return doc ? { settings: present(doc), revision: doc.revision ?? 0 } : null;
    },
    /**
     * Writes `settings` if the stored document is still at `revision` (0: not yet stored). False when
     * another writer came first, so the caller re-reads and re-validates instead of overwriting its change.
     */
    async replaceIfUnchanged(settings: SignInExperience, revision: number): Promise<boolean> {
      const doc: Stored<SignInExperience> & { revision: number } = { ...settings, _id: ID, revision: revision + 1 };
      if (revision === 0) {
        // Not an insert that fails on a duplicate: a failed write would abort the request's MongoDB transaction.
        const { _id, ...fields } = doc;
        const result = await collection.updateOne({ _id }, { $setOnInsert: fields }, { upsert: true });
        return result.upsertedId !== null;
      }
      const result = await collection.replaceOne({ _id: ID, revision }, doc);
      return result.matchedCount === 1;
    },
  };
}

export type SignInExperienceRepository = ReturnType<typeof createSignInExperienceRepository>;
