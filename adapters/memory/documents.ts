/**
 * In-process implementation of the document-store port with MongoDB semantics (collection.ts), including
 * isolated, all-or-nothing transactions (transactions.ts). The same engine serves the SQLite store, which adds
 * durability (every committed change written through to the file) and collections kept on disk.
 */
import type { Doc, DocumentCollection, DocumentStore, TransactionScope } from '../../lib/ports/documents.ts';
import { EmbeddedCollection } from './collection.ts';
import { CommittedDocuments, type CommittedState } from './committed.ts';
import { MemoryTransactions, type Durability } from './transactions.ts';

export interface EmbeddedStoreOptions {
  kind: DocumentStore['kind'];
  durability?: Durability;
  /**
   * Where the committed documents of a collection are kept, asked once per collection on first use: in memory unless
   * this says otherwise (the SQLite store's disk-resident collections, and in-memory ones it fills from the file).
   */
  committed?: (name: string) => CommittedState;
  ping?: () => Promise<void>;
  close?: () => Promise<void>;
}

export class EmbeddedDocumentStore implements DocumentStore {
  readonly kind: DocumentStore['kind'];
  readonly #collections = new Map<string, EmbeddedCollection>();
  readonly #transactions: MemoryTransactions;
  readonly #options: EmbeddedStoreOptions;

  constructor(options: EmbeddedStoreOptions) {
    this.kind = options.kind;
    this.#options = options;
    this.#transactions = new MemoryTransactions(options.durability);
  }

  collection<T extends object = Doc>(name: string): DocumentCollection<T> {
    let collection = this.#collections.get(name);
    if (!collection) {
      const committed = this.#options.committed?.(name) ?? new CommittedDocuments(name);
      collection = new EmbeddedCollection(name, this.#transactions, committed);
      this.#collections.set(name, collection);
    }
    // Documents are untyped at runtime; T only describes what the caller stores.
    return collection as unknown as DocumentCollection<T>;
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

  changeCount(collections: readonly string[]): number | undefined {
    const transaction = this.#transactions.current();
    let count = 0;
    for (const name of collections) {
      const collection = this.#collections.get(name);
      if (!collection) continue;
      // A read inside a transaction that changed the collection sees what nobody else does: it must not be shared.
      if (transaction?.writes.has(collection)) return undefined;
      // A sum of counters that only grow grows whenever any of them does.
      const changes = collection.changeCount();
      if (changes === undefined) return undefined;
      count += changes;
    }
    return count;
  }

  async ping(): Promise<void> {
    await this.#options.ping?.();
  }

  async close(): Promise<void> {
    this.#collections.clear();
    await this.#options.close?.();
  }
}

export function createMemoryDocumentStore(): DocumentStore {
  return new EmbeddedDocumentStore({ kind: 'memory' });
}
