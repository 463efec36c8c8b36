/**
 * The durable document store: the embedded engine (adapters/memory: MongoDB semantics, isolated transactions) with
 * every committed change written through to the SQLite file before it is acknowledged (database.ts, group commit).
 * The file is the source of truth: at start every document is read back from it. Most collections are then served
 * from memory; the large, append-mostly ones named in `diskResident` stay on disk (disk-documents.ts).
 */
import type { Doc, DocumentStore } from '../../lib/ports/documents.ts';
import { CommittedDocuments } from '../memory/committed.ts';
import { EmbeddedDocumentStore } from '../memory/documents.ts';
import type { CommittedChange, Durability } from '../memory/transactions.ts';
import { idKey } from '../memory/values.ts';
import { decodeDocument, encodeDocument } from './codec.ts';
import type { SqliteDatabase } from './database.ts';
import { DiskDocuments } from './disk-documents.ts';

export interface SqliteDocumentStoreOptions {
  /** Collections kept on disk rather than in memory: large, append-mostly, no unique index, string ids. */
  diskResident: readonly string[];
  /**
   * Per disk-resident collection, how many of the documents it inserted to keep in memory until they are changed or
   * removed: those read back soon after they were written (see disk-documents.ts).
   */
  keepInserted?: Readonly<Record<string, number>>;
}

/** Every document of the in-memory collections, by collection, in the order each was first stored. */
function readDocuments(database: SqliteDatabase): Map<string, Doc[]> {
  const byCollection = new Map<string, Doc[]>();
  for (const row of database.db.prepare('SELECT collection, doc FROM documents ORDER BY rowid').iterate()) {
    const name = String(row.collection);
    let docs = byCollection.get(name);
    if (!docs) {
      docs = [];
      byCollection.set(name, docs);
    }
    docs.push(decodeDocument(String(row.doc)));
  }
  return byCollection;
}

function writeThrough(database: SqliteDatabase): Durability {
  return {
    persist(changes: readonly CommittedChange[]): Promise<void> {
      return database.write(
        () => {
          const upsert = database.statement(
            'INSERT INTO documents (collection, id, doc) VALUES (?, ?, ?) ON CONFLICT (collection, id) DO UPDATE SET doc = excluded.doc',
          );
          const remove = database.statement('DELETE FROM documents WHERE collection = ? AND id = ?');
          for (const change of changes) {
            if (change.written) continue;
            if (change.after) upsert.run(change.collection.name, change.id, encodeDocument(change.after));
            else remove.run(change.collection.name, change.id);
          }
        },
        () => {
          for (let i = changes.length - 1; i >= 0; i -= 1) {
            const change = changes[i]!;
            // A disk-resident collection's changes go with the rolled-back SQLite transaction.
            if (!change.written) change.collection.restore(change.id, change.after, change.before);
          }
        },
      );
    },
  };
}

/** Reads the file's documents (a corrupt file throws here, before anything is served) and opens the store over them. */
export function createSqliteDocumentStore(
  database: SqliteDatabase,
  options: SqliteDocumentStoreOptions,
): DocumentStore {
  const stored = readDocuments(database);
  const disk: DiskDocuments[] = [];
  return new EmbeddedDocumentStore({
    kind: 'sqlite',
    durability: writeThrough(database),
    committed(name) {
      if (options.diskResident.includes(name)) {
        const documents = new DiskDocuments(database, name, { keepInserted: options.keepInserted?.[name] ?? 0 });
        disk.push(documents);
        return documents;
      }
      const documents = new CommittedDocuments(name);
      for (const doc of stored.get(name) ?? []) documents.insert(idKey(doc._id), doc);
      stored.delete(name);
      return documents;
    },
    async ping() {
      database.statement('SELECT 1').get();
    },
    async close() {
      for (const documents of disk) documents.close();
      await database.settled();
    },
  });
}
