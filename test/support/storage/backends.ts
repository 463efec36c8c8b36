import { randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { createMemoryDocumentStore } from '../../../adapters/memory/documents.ts';
import { createMongoDocumentStore } from '../../../adapters/mongodb/documents.ts';
import { createSqliteDocumentStore } from '../../../adapters/sqlite/documents.ts';
import type { DocumentStore } from '../../../lib/ports/documents.ts';
import { openTempDatabase } from '../sqlite.ts';

/** A document-store backend the contract suites run on: memory and SQLite always, MongoDB when MONGODB_URI is set. */
export interface StoreBackend {
  readonly kind: DocumentStore['kind'];
  /** Why this backend cannot run here, or null (then the suite is reported pending). */
  readonly unavailable: string | null;
  /** A store with no data, independent of every other store opened. */
  open(): Promise<DocumentStore>;
  /** Closes what `open` opened and drops MongoDB's databases. */
  tearDown(): Promise<void>;
}

export function memoryBackend(): StoreBackend {
  const opened: DocumentStore[] = [];
  return {
    kind: 'memory',
    unavailable: null,
    async open() {
      const store = createMemoryDocumentStore();
      opened.push(store);
      return store;
    },
    async tearDown() {
      for (const store of opened) await store.close();
    },
  };
}

/**
 * The SQLite store in a temporary data directory per store, written with `synchronous = FULL` as in production;
 * `diskResident` names the collections it keeps on disk (none unless a suite says so).
 */
export function sqliteBackend(diskResident: readonly string[] = []): StoreBackend {
  const opened: Array<{ store: DocumentStore; remove(): Promise<void> }> = [];
  return {
    kind: 'sqlite',
    unavailable: null,
    async open() {
      const { database, remove } = openTempDatabase();
      const store = createSqliteDocumentStore(database, { diskResident });
      opened.push({ store, remove });
      return store;
    },
    async tearDown() {
      for (const { store, remove } of opened) {
        await store.close();
        await remove();
      }
    },
  };
}

export function mongoBackend(uri: string | undefined = process.env.MONGODB_URI): StoreBackend {
  const runId = randomUUID().slice(0, 8);
  const opened: Array<{ dbName: string; store: DocumentStore }> = [];
  return {
    kind: 'mongodb',
    unavailable: uri ? null : 'MONGODB_URI is not set',
    async open() {
      const dbName = `contract_${runId}_${opened.length}`;
      const store = await createMongoDocumentStore(uri!, { dbName });
      opened.push({ dbName, store });
      return store;
    },
    async tearDown() {
      if (opened.length === 0) return;
      const client = await MongoClient.connect(uri!);
      for (const { dbName, store } of opened) {
        await store.close();
        await client.db(dbName).dropDatabase();
      }
      await client.close();
    },
  };
}

/** One `describe` per backend; an unavailable backend's suite is pending, never passed. */
export function forEachBackend(
  title: string,
  suite: (backend: StoreBackend) => void,
  options: { diskResident?: readonly string[] } = {},
): void {
  for (const backend of [memoryBackend(), sqliteBackend(options.diskResident), mongoBackend()]) {
    describe(`${title}: ${backend.kind}`, () => {
      before(function () {
        if (backend.unavailable) this.skip();
      });
      after(() => backend.tearDown());
      suite(backend);
    });
  }
}
