/**
 * The document-store port over the official MongoDB driver. A thin layer: each method delegates to the
 * driver's Collection; the only translation is duplicate-key errors (code 11000) → DuplicateKeyError.
 */
import { MongoClient, type Collection, type CreateIndexesOptions, type Db, type Document } from 'mongodb';
import {
  DuplicateKeyError,
  type Doc,
  type DocumentCollection,
  type DocumentStore,
  type FindOneAndUpdateOptions,
  type FindOptions,
  type Filter,
  type IndexSpec,
  type UpdateOptions,
  type UpdateResult,
  type Update,
} from '../../lib/ports/documents.ts';

interface DriverError {
  code?: unknown;
  keyPattern?: unknown;
  writeErrors?: unknown;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/**
 * The driver reports a duplicate key as a MongoServerError carrying `keyPattern`, or for bulk writes as a
 * MongoBulkWriteError whose write errors carry the server's raw error (with `keyPattern`) in `err`.
 */
function keyPatternOf(error: DriverError): Record<string, unknown> | undefined {
  if (isRecord(error.keyPattern)) return error.keyPattern;
  const writeErrors = Array.isArray(error.writeErrors) ? error.writeErrors : [error.writeErrors];
  for (const writeError of writeErrors) {
    const raw: unknown = isRecord(writeError) ? writeError.err : undefined;
    if (isRecord(raw) && isRecord(raw.keyPattern)) return raw.keyPattern;
  }
  return undefined;
}

function translateError(collection: string, error: unknown, fallbackKeys?: Record<string, unknown>): unknown {
  if (!isRecord(error) || error.code !== 11000) return error;
  return new DuplicateKeyError(collection, keyPatternOf(error) ?? fallbackKeys ?? {});
}

class MongoCollection implements DocumentCollection<Doc> {
  readonly name: string;
  readonly #collection: Collection<Document>;

  constructor(collection: Collection<Document>) {
    this.name = collection.collectionName;
    this.#collection = collection;
  }

  async #run<R>(operation: () => Promise<R>, fallbackKeys?: Record<string, unknown>): Promise<R> {
    try {
      return await operation();
    } catch (error) {
      throw translateError(this.name, error, fallbackKeys);
    }
  }

  insertOne(doc: Doc): Promise<void> {
    return this.#run(async () => {
      await this.#collection.insertOne(doc);
    });
  }

  insertMany(docs: Doc[]): Promise<void> {
    return this.#run(async () => {
      await this.#collection.insertMany(docs);
    });
  }

  findOne(filter: Filter, options: Omit<FindOptions, 'limit' | 'skip'> = {}): Promise<Doc | null> {
    return this.#run(() => this.#collection.findOne(filter, options));
  }

  find(filter: Filter, options: FindOptions = {}): Promise<Doc[]> {
    return this.#run(() => this.#collection.find(filter, options).toArray());
  }

  countDocuments(filter: Filter): Promise<number> {
    return this.#run(() => this.#collection.countDocuments(filter));
  }

  updateOne(filter: Filter, update: Update, options: UpdateOptions = {}): Promise<UpdateResult> {
    return this.#run(async () => {
      const result = await this.#collection.updateOne(filter, update, options);
      return { matchedCount: result.matchedCount, modifiedCount: result.modifiedCount, upsertedId: result.upsertedId };
    });
  }

  updateMany(filter: Filter, update: Update): Promise<UpdateResult> {
    return this.#run(async () => {
      const result = await this.#collection.updateMany(filter, update);
      return { matchedCount: result.matchedCount, modifiedCount: result.modifiedCount, upsertedId: result.upsertedId };
    });
  }

  replaceOne(filter: Filter, doc: Doc, options: UpdateOptions = {}): Promise<UpdateResult> {
    return this.#run(async () => {
      const result = await this.#collection.replaceOne(filter, doc, options);
      return { matchedCount: result.matchedCount, modifiedCount: result.modifiedCount, upsertedId: result.upsertedId };
    });
  }

  findOneAndUpdate(filter: Filter, update: Update, options: FindOneAndUpdateOptions = {}): Promise<Doc | null> {
    return this.#run(() =>
      this.#collection.findOneAndUpdate(filter, update, { ...options, returnDocument: options.returnDocument ?? 'before' }),
    );
  }

  findOneAndDelete(filter: Filter): Promise<Doc | null> {
    return this.#run(() => this.#collection.findOneAndDelete(filter));
  }

  deleteOne(filter: Filter): Promise<number> {
    return this.#run(async () => (await this.#collection.deleteOne(filter)).deletedCount);
  }

  deleteMany(filter: Filter): Promise<number> {
    return this.#run(async () => (await this.#collection.deleteMany(filter)).deletedCount);
  }

  createIndex(spec: IndexSpec): Promise<void> {
    const options: CreateIndexesOptions = {};
    if (spec.unique !== undefined) options.unique = spec.unique;
    if (spec.sparse !== undefined) options.sparse = spec.sparse;
    if (spec.expireAfterSeconds !== undefined) options.expireAfterSeconds = spec.expireAfterSeconds;
    if (spec.name !== undefined) options.name = spec.name;
    return this.#run(async () => {
      await this.#collection.createIndex(spec.keys, options);
    }, spec.keys);
  }
}

class MongoDocumentStore implements DocumentStore {
  readonly kind = 'mongodb' as const;
  readonly #client: MongoClient;
  readonly #db: Db;
  readonly #collections = new Map<string, MongoCollection>();

  constructor(client: MongoClient, db: Db) {
    this.#client = client;
    this.#db = db;
  }

  collection<T extends object = Doc>(name: string): DocumentCollection<T> {
    let collection = this.#collections.get(name);
    if (!collection) {
      collection = new MongoCollection(this.#db.collection(name));
      this.#collections.set(name, collection);
    }
    // Documents are untyped at runtime; T only describes what the caller stores.
    return collection as unknown as DocumentCollection<T>;
  }

  async ping(): Promise<void> {
    await this.#db.command({ ping: 1 });
  }

  async close(): Promise<void> {
    this.#collections.clear();
    await this.#client.close();
  }
}

/** Connects to `uri`; the database is `options.dbName`, else the one named in the URI. */
export async function createMongoDocumentStore(uri: string, options: { dbName?: string } = {}): Promise<DocumentStore> {
  const client = new MongoClient(uri);
  await client.connect();
  return new MongoDocumentStore(client, client.db(options.dbName));
}
