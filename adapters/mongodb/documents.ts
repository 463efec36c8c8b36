/**
 * The document-store port over the official MongoDB driver. A thin layer: each method delegates to the
 * driver's Collection; the only translation is duplicate-key errors (code 11000) → DuplicateKeyError.
 */
import {
  MongoClient,
  type ClientSession,
  type Collection,
  type CreateIndexesOptions,
  type Db,
  type Document,
} from 'mongodb';
import {
  DuplicateKeyError,
  type Doc,
  type DocumentCollection,
  type DocumentStore,
  type FindOneAndUpdateOptions,
  type FindOptions,
  type Filter,
  type IndexSpec,
  type TransactionScope,
  type UpdateOptions,
  type UpdateResult,
  type Update,
} from '../../lib/ports/documents.ts';
import { ConfigurationError } from '../../lib/config.ts';
import { MongoTransactions } from './transactions.ts';

interface DriverError {
  code?: unknown;
  keyPattern?: unknown;
  writeErrors?: unknown;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/**
 * The driver reports a duplicate key as a MongoServerError carrying `keyPattern`; a bulk write (insertMany)
 * keeps only each write error's code and message, so there the fields come from the message's
 * `dup key: { name: "x", … }`.
 */
function keyPatternOf(error: DriverError): Record<string, unknown> | undefined {
  if (isRecord(error.keyPattern)) return error.keyPattern;
  const writeErrors = Array.isArray(error.writeErrors) ? error.writeErrors : [error.writeErrors];
  for (const writeError of writeErrors) {
    if (!isRecord(writeError)) continue;
    const raw: unknown = writeError.err;
    if (isRecord(raw) && isRecord(raw.keyPattern)) return raw.keyPattern;
    const message = typeof writeError.errmsg === 'string' ? writeError.errmsg : isRecord(raw) ? raw.errmsg : undefined;
    const fields = typeof message === 'string' ? duplicateKeyFields(message) : [];
    if (fields.length > 0) return Object.fromEntries(fields.map((field) => [field, 1]));
  }
  return undefined;
}

/** The field names of the server's `dup key: { a: "x", b: 1 }` (values never matter, and may hold anything). */
function duplicateKeyFields(message: string): string[] {
  const body = /dup key: \{ (.*) \}\s*$/.exec(message)?.[1];
  if (!body) return [];
  const fields: string[] = [];
  const pattern = /(?:^|, )([A-Za-z_$][\w.$]*): (?:"(?:[^"\\]|\\.)*"|[^,]*)/g;
  for (let match = pattern.exec(body); match; match = pattern.exec(body)) fields.push(match[1]!);
  return fields;
}

/** Translates a driver error; exported for the contract tests. */
export function translateError(collection: string, error: unknown, fallbackKeys?: Record<string, unknown>): unknown {
  if (!isRecord(error) || error.code !== 11000) return error;
  return new DuplicateKeyError(collection, keyPatternOf(error) ?? fallbackKeys ?? {});
}

/** The session option of an operation: present only inside a transaction. */
function inSession(session: ClientSession | undefined): { session?: ClientSession } {
  return session ? { session } : {};
}

class MongoCollection implements DocumentCollection<Doc> {
  readonly name: string;
  readonly #collection: Collection<Document>;
  readonly #transactions: MongoTransactions;

  constructor(collection: Collection<Document>, transactions: MongoTransactions) {
    this.name = collection.collectionName;
    this.#collection = collection;
    this.#transactions = transactions;
  }

  async #run<R>(
    operation: (session: { session?: ClientSession }) => Promise<R>,
    fallbackKeys?: Record<string, unknown>,
  ): Promise<R> {
    try {
      return await this.#transactions.operate((session) => operation(inSession(session)));
    } catch (error) {
      throw translateError(this.name, error, fallbackKeys);
    }
  }

  insertOne(doc: Doc): Promise<void> {
    return this.#run(async (session) => {
      await this.#collection.insertOne(doc, session);
    });
  }

  insertMany(docs: Doc[]): Promise<void> {
    return this.#run(async (session) => {
      await this.#collection.insertMany(docs, session);
    });
  }

  findOne(filter: Filter, options: Omit<FindOptions, 'limit' | 'skip'> = {}): Promise<Doc | null> {
    return this.#run((session) => this.#collection.findOne(filter, { ...options, ...session }));
  }

  find(filter: Filter, options: FindOptions = {}): Promise<Doc[]> {
    return this.#run((session) => this.#collection.find(filter, { ...options, ...session }).toArray());
  }

  countDocuments(filter: Filter): Promise<number> {
    return this.#run((session) => this.#collection.countDocuments(filter, session));
  }

  updateOne(filter: Filter, update: Update, options: UpdateOptions = {}): Promise<UpdateResult> {
    return this.#run(async (session) => {
      const result = await this.#collection.updateOne(filter, update, { ...options, ...session });
      return { matchedCount: result.matchedCount, modifiedCount: result.modifiedCount, upsertedId: result.upsertedId };
    });
  }

  updateMany(filter: Filter, update: Update): Promise<UpdateResult> {
    return this.#run(async (session) => {
      const result = await this.#collection.updateMany(filter, update, session);
      return { matchedCount: result.matchedCount, modifiedCount: result.modifiedCount, upsertedId: result.upsertedId };
    });
  }

  replaceOne(filter: Filter, doc: Doc, options: UpdateOptions = {}): Promise<UpdateResult> {
    return this.#run(async (session) => {
      const result = await this.#collection.replaceOne(filter, doc, { ...options, ...session });
      return { matchedCount: result.matchedCount, modifiedCount: result.modifiedCount, upsertedId: result.upsertedId };
    });
  }

  findOneAndUpdate(filter: Filter, update: Update, options: FindOneAndUpdateOptions = {}): Promise<Doc | null> {
    return this.#run((session) =>
      this.#collection.findOneAndUpdate(filter, update, {
        ...options,
        ...session,
        returnDocument: options.returnDocument ?? 'before',
      }),
    );
  }

  findOneAndDelete(filter: Filter): Promise<Doc | null> {
    return this.#run((session) => this.#collection.findOneAndDelete(filter, session));
  }

  deleteOne(filter: Filter): Promise<number> {
    return this.#run(async (session) => (await this.#collection.deleteOne(filter, session)).deletedCount);
  }

  deleteMany(filter: Filter): Promise<number> {
    return this.#run(async (session) => (await this.#collection.deleteMany(filter, session)).deletedCount);
  }

  createIndex(spec: IndexSpec): Promise<void> {
    const options: CreateIndexesOptions = {};
    if (spec.unique !== undefined) options.unique = spec.unique;
    if (spec.sparse !== undefined) options.sparse = spec.sparse;
    if (spec.expireAfterSeconds !== undefined) options.expireAfterSeconds = spec.expireAfterSeconds;
    if (spec.name !== undefined) options.name = spec.name;
    return this.#run(async () => {
      try {
        await this.#collection.createIndex(spec.keys, options);
      } catch (error) {
        // A substring index is an ordinary one here: an index on the field under another name or options serves as well.
        if (spec.substring && INDEX_CONFLICTS.has((error as { code?: unknown }).code)) return;
        throw error;
      }
    }, spec.keys);
  }
}

/** IndexOptionsConflict and IndexKeySpecsConflict: an index on the same keys exists with another name or options. */
const INDEX_CONFLICTS = new Set<unknown>([85, 86]);

class MongoDocumentStore implements DocumentStore {
  readonly kind = 'mongodb' as const;
  readonly #client: MongoClient;
  readonly #db: Db;
  readonly #collections = new Map<string, MongoCollection>();
  readonly #transactions: MongoTransactions;

  constructor(client: MongoClient, db: Db) {
    this.#client = client;
    this.#db = db;
    this.#transactions = new MongoTransactions(client);
  }

  transaction<T>(work: () => Promise<T>): Promise<T> {
    return this.#transactions.run(work);
  }

  currentTransaction(): TransactionScope | undefined {
    return this.#transactions.current();
  }

  outsideTransaction<T>(work: () => Promise<T>): Promise<T> {
    return this.#transactions.outside(work);
  }

  collection<T extends object = Doc>(name: string): DocumentCollection<T> {
    let collection = this.#collections.get(name);
    if (!collection) {
      collection = new MongoCollection(this.#db.collection(name), this.#transactions);
      this.#collections.set(name, collection);
    }
    // Documents are untyped at runtime; T only describes what the caller stores.
    return collection as unknown as DocumentCollection<T>;
  }

  /** Other processes write the same database: a change cannot be known without asking it. */
  changeCount(): undefined {
    return undefined;
  }

  async ping(): Promise<void> {
    await this.#db.command({ ping: 1 });
  }

  async close(): Promise<void> {
    this.#collections.clear();
    await this.#client.close();
  }
}

/**
 * Without these the driver waits 30 s to find a server (or to connect) on every operation, and for ever for
 * a server that stops answering or a free pooled connection, so a request against a MongoDB that is down
 * would hang; bounded, it fails and answers 503. A URI that sets one wins. (This driver ignores `timeoutMS`.)
 */
const BOUNDED_TIMEOUTS = {
  serverSelectionTimeoutMS: 5000,
  connectTimeoutMS: 5000,
  waitQueueTimeoutMS: 5000,
  socketTimeoutMS: 30_000,
} as const;

/** The database named in a connection string's path, if any. */
function databaseOf(uri: string): string | undefined {
  const match = /^mongodb(?:\+srv)?:\/\/[^/?]*\/([^?]*)/.exec(uri);
  const name = match?.[1] ? decodeURIComponent(match[1]) : '';
  return name || undefined;
}

function timeoutsOf(uri: string): Partial<Record<keyof typeof BOUNDED_TIMEOUTS, number>> {
  const query = uri.includes('?') ? new URLSearchParams(uri.slice(uri.indexOf('?') + 1)) : new URLSearchParams();
  const given = new Set([...query.keys()].map((key) => key.toLowerCase()));
  return Object.fromEntries(Object.entries(BOUNDED_TIMEOUTS).filter(([key]) => !given.has(key.toLowerCase())));
}

/**
 * Connects to `uri`; the database is `options.dbName`, else the one named in the URI. A URI naming none is
 * refused: the driver would silently use `test`, and a restart with a corrected URI would find nothing.
 */
export async function createMongoDocumentStore(uri: string, options: { dbName?: string } = {}): Promise<DocumentStore> {
  const dbName = options.dbName ?? databaseOf(uri);
  if (!dbName)
    throw new ConfigurationError('MONGODB_URI must name a database (mongodb://host:27017/identity?replicaSet=rs0)');
  const client = new MongoClient(uri, timeoutsOf(uri));
  await client.connect();
  return new MongoDocumentStore(client, client.db(dbName));
}
