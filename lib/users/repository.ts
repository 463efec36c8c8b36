import type { DocumentStore, Filter } from '../ports/documents.ts';
import { createEntityRepository, publicShape, type Page, type PageResult, type SearchInput } from '../data/entity.ts';

export interface User {
  id: string;
  username: string | null;
  primaryEmail: string | null;
  primaryPhone: string | null;
  name: string | null;
  avatar: string | null;
  customData: Record<string, unknown>;
  identities: Record<string, unknown>;
  profile: Record<string, unknown>;
  applicationId: string | null;
  isSuspended: boolean;
  hasPassword: boolean;
  lastSignInAt: number | null;
  createdAt: number;
  updatedAt: number;
}

/** Private fields never leave the repository through `present`. */
export interface UserSecrets {
  passwordDigest?: string | null;
  mfaVerifications?: unknown[];
  /** The user declined to enrol a second factor when asked at sign-in (asked no more unless it becomes mandatory). */
  mfaSkipped?: boolean;
}

const SEARCH_FIELDS = ['id', 'username', 'primaryEmail', 'primaryPhone', 'name'] as const;

export function createUsersRepository(store: DocumentStore) {
  const {
    collection: users,
    present,
    operations,
  } = createEntityRepository<User, UserSecrets>(store, 'users', {
    searchFields: SEARCH_FIELDS,
    // Identifiers are unset rather than stored as null (sparse unique indexes); the API shape has them as null.
    present(doc) {
      const user = publicShape<User>(doc, ['passwordDigest', 'mfaVerifications', 'mfaSkipped']);
      for (const key of IDENTIFIER_FIELDS) user[key] ??= null;
      return user;
    },
  });

  return {
    findById: operations.findById,
    findByIds: operations.findByIds,
    delete: operations.delete,
    async prepare() {
      await users.createIndex({ keys: { username: 1 }, unique: true, sparse: true });
      await users.createIndex({ keys: { primaryEmail: 1 }, unique: true, sparse: true });
      await users.createIndex({ keys: { primaryPhone: 1 }, unique: true, sparse: true });
      await users.createIndex({ keys: { createdAt: 1 } });
      // `?search=` looks for a substring of these: trigram postings read only the users holding the text's trigrams.
      for (const field of SEARCH_FIELDS)
        await users.createIndex({ keys: { [field]: 1 }, substring: true, name: `${field}_substring` });
    },
    async insert(user: User, secrets: UserSecrets = {}): Promise<User> {
      await operations.insert(withoutNullIdentifiers(user), secrets);
      return user;
    },
    /** The user with private fields, for credential checks inside the service only. */
    async findWithSecrets(filter: { id?: string; username?: string; primaryEmail?: string; primaryPhone?: string }) {
      const query = filter.id ? { _id: filter.id } : filter;
      const doc = await users.findOne(query);
      return doc
        ? {
            user: present(doc),
            secrets: {
              passwordDigest: doc.passwordDigest ?? null,
              mfaVerifications: doc.mfaVerifications ?? [],
              mfaSkipped: doc.mfaSkipped ?? false,
            },
          }
        : null;
    },
    list(
      page: Page,
      filter: { search?: SearchInput; excludeIds?: string[]; ids?: string[] },
    ): Promise<PageResult<User>> {
      const query: Filter = {};
      if (filter.ids) query._id = { $in: filter.ids };
      else if (filter.excludeIds?.length) query._id = { $nin: filter.excludeIds };
      return operations.list(page, filter.search, query);
    },
    /**
     * Merges top-level keys into `customData` or `profile` without losing a concurrent merge: one `$set` per
     * key, atomic on the stored document. Keys a dotted path cannot name (empty, or with a dot) are merged by
     * compare-and-set on the stored object instead, retried a few times, the last try writing regardless.
     */
    async mergeInto(
      id: string,
      field: 'customData' | 'profile',
      values: Record<string, unknown>,
    ): Promise<User | null> {
      const updatedAt = Date.now();
      if (Object.keys(values).every((key) => key !== '' && !key.includes('.'))) {
        const set = Object.fromEntries(Object.entries(values).map(([key, value]) => [`${field}.${key}`, value]));
        const doc = await users.findOneAndUpdate(
          { _id: id },
          { $set: { ...set, updatedAt } },
          { returnDocument: 'after' },
        );
        return doc ? present(doc) : null;
      }
      for (let attempt = 1; ; attempt += 1) {
        const current = await users.findOne({ _id: id });
        if (!current) return null;
        const stored = current[field];
        const filter = attempt < MERGE_ATTEMPTS ? { _id: id, [field]: stored ?? { $exists: false } } : { _id: id };
        const doc = await users.findOneAndUpdate(
          filter,
          { $set: { [field]: { ...stored, ...values }, updatedAt } },
          { returnDocument: 'after' },
        );
        if (doc) return present(doc);
      }
    },
    async update(id: string, changes: Partial<User> & UserSecrets): Promise<User | null> {
      const set: Record<string, unknown> = { updatedAt: Date.now() };
      const unset: Record<string, ''> = {};
      for (const [key, value] of Object.entries(changes)) {
        // Null identifiers are unset so the sparse unique indexes ignore them.
        if (value === null && IDENTIFIERS.has(key)) unset[key] = '';
        else set[key] = value;
      }
      const update: Record<string, unknown> = { $set: set };
      if (Object.keys(unset).length) update.$unset = unset;
      const doc = await users.findOneAndUpdate({ _id: id }, update, { returnDocument: 'after' });
      return doc ? present(doc) : null;
    },
  };
}

const MERGE_ATTEMPTS = 5;
const IDENTIFIER_FIELDS = ['username', 'primaryEmail', 'primaryPhone'] as const;
const IDENTIFIERS: ReadonlySet<string> = new Set(IDENTIFIER_FIELDS);

function withoutNullIdentifiers<T extends object>(doc: T): T {
  const copy: Record<string, unknown> = { ...doc } as Record<string, unknown>;
  for (const key of IDENTIFIERS) if (copy[key] === null) delete copy[key];
  return copy as T;
}

export type UsersRepository = ReturnType<typeof createUsersRepository>;
