/**
 * The document-store port. Repositories are written once against this subset of the MongoDB collection
 * API; `adapters/mongodb` delegates to the official driver and `adapters/memory` reimplements the same
 * semantics in process (filters, update operators, unique indexes, duplicate-key errors, TTL indexes), which
 * `adapters/sqlite` makes durable in one SQLite file.
 */

export type Doc = Record<string, unknown>;
/** A MongoDB query filter (`{ field: value }`, dotted paths, `$in`, `$gt`, `$or`, `$regex`, …). */
export type Filter = Record<string, unknown>;
/** A MongoDB update document made of operators (`$set`, `$unset`, `$inc`, `$push`, `$addToSet`, `$pull`, `$setOnInsert`). */
export type Update = Record<string, unknown>;
/** `{ field: 1 | -1 }`, applied in key order. */
export type Sort = Record<string, 1 | -1>;
/** Inclusion (`{ a: 1 }`) or exclusion (`{ a: 0 }`) projection; `_id` is included unless excluded. */
export type Projection = Record<string, 0 | 1>;

export interface FindOptions {
  sort?: Sort;
  skip?: number;
  limit?: number;
  projection?: Projection;
}

export interface FindOneAndUpdateOptions {
  /** Default `'before'`, as in the driver. */
  returnDocument?: 'before' | 'after';
  upsert?: boolean;
  projection?: Projection;
  sort?: Sort;
}

export interface UpdateOptions {
  upsert?: boolean;
}

export interface UpdateResult {
  matchedCount: number;
  modifiedCount: number;
  upsertedId: unknown | null;
}

export interface IndexSpec {
  /** `{ field: 1 }`; compound keys allowed. */
  keys: Record<string, 1 | -1>;
  unique?: boolean;
  /** Documents where no key field exists stay out of the index (MongoDB sparse semantics). */
  sparse?: boolean;
  /** TTL index on a single Date field: documents expire this many seconds after that date. MongoDB removes
   * them lazily (about once a minute), so readers that need exact expiry also compare the date. */
  expireAfterSeconds?: number;
  /**
   * A single-field index for substring searches (unanchored regular expressions: a Logto `%text%` search, a plain
   * `q`). The embedded stores keep trigram postings, so a search reads only the documents holding its text's
   * trigrams, beside any ordinary index on the field; MongoDB builds an ordinary index on the field (unless one exists,
   * which serves as well), whose keys it scans for such a search instead of the documents.
   */
  substring?: boolean;
  name?: string;
}

export interface DocumentCollection<T extends object = Doc> {
  readonly name: string;
  insertOne(doc: T): Promise<void>;
  insertMany(docs: T[]): Promise<void>;
  findOne(filter: Filter, options?: Omit<FindOptions, 'limit' | 'skip'>): Promise<T | null>;
  find(filter: Filter, options?: FindOptions): Promise<T[]>;
  countDocuments(filter: Filter): Promise<number>;
  updateOne(filter: Filter, update: Update, options?: UpdateOptions): Promise<UpdateResult>;
  updateMany(filter: Filter, update: Update): Promise<UpdateResult>;
  replaceOne(filter: Filter, doc: T, options?: UpdateOptions): Promise<UpdateResult>;
  findOneAndUpdate(filter: Filter, update: Update, options?: FindOneAndUpdateOptions): Promise<T | null>;
  findOneAndDelete(filter: Filter): Promise<T | null>;
  deleteOne(filter: Filter): Promise<number>;
  deleteMany(filter: Filter): Promise<number>;
  createIndex(spec: IndexSpec): Promise<void>;
}

/** What code running inside a transaction may attach to it. */
export interface TransactionScope {
  /** Runs as the transaction's last step, inside it: a failure aborts the transaction. */
  beforeCommit(step: () => Promise<void>): void;
  /** Runs once the transaction committed, outside it; never when it aborted. */
  afterCommit(callback: () => Promise<void> | void): void;
  /**
   * Runs once the transaction aborted (its work or a last step failed, or its commit could not be made durable),
   * synchronously as it ends; never when it committed.
   */
  afterAbort(callback: () => void): void;
}

export interface DocumentStore {
  readonly kind: 'memory' | 'sqlite' | 'mongodb';
  collection<T extends object = Doc>(name: string): DocumentCollection<T>;
  /**
   * Runs `work` as one transaction: every write through this store's collections in its asynchronous
   * context commits with the others or not at all (the context carries the transaction, so repositories
   * take no extra parameter). A call made inside a transaction joins it. MongoDB needs a replica set.
   * A transaction's writes are invisible to others until it commits, and a document it wrote cannot be written by
   * another before then: the embedded stores (read committed) make that writer wait; MongoDB (snapshot) fails it with
   * a transient write conflict.
   */
  transaction<T>(work: () => Promise<T>): Promise<T>;
  /** The transaction the calling code runs in, if any. */
  currentTransaction(): TransactionScope | undefined;
  /** Runs `work` outside any transaction: its writes stand whatever the caller's transaction does. */
  outsideTransaction<T>(work: () => Promise<T>): Promise<T>;
  /**
   * A number that grows whenever a document of any of these collections is inserted, changed, removed or expires,
   * when the backend can tell that exactly and without a round trip: the embedded stores, whose only writer is this
   * process. `undefined` when it cannot (MongoDB, which other processes write; or inside a transaction that changed
   * one of them, whose reads nobody else sees): then no read may be remembered.
   */
  changeCount(collections: readonly string[]): number | undefined;
  /** Resolves when the backend answers; rejects otherwise (readiness). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** Thrown by every backend when a write would violate a unique index (MongoDB error code 11000). */
export class DuplicateKeyError extends Error {
  readonly code = 11000;
  readonly collection: string;
  readonly keyPattern: Record<string, unknown>;
  constructor(collection: string, keyPattern: Record<string, unknown>) {
    super(`duplicate key in ${collection}: ${Object.keys(keyPattern).join(', ')}`);
    this.name = 'DuplicateKeyError';
    this.collection = collection;
    this.keyPattern = keyPattern;
  }
}

/**
 * Thrown by the embedded store when a write cannot wait for another transaction's lock (a deadlock, or a wait past
 * its bound). Labelled as MongoDB labels its own write conflicts, so that the HTTP layer answers 503, which a client
 * may retry.
 */
export class TransactionConflictError extends Error {
  override readonly name = 'TransactionConflictError';

  hasErrorLabel(label: string): boolean {
    return label === 'TransientTransactionError';
  }
}

/**
 * Thrown by a durable embedded store when a write could not be made durable (disk full, read-only, I/O error): the
 * change was undone. The HTTP layer answers 503 `service.dependency_unavailable`.
 */
export class DurableWriteError extends Error {
  override readonly name = 'DurableWriteError';
}
