/**
 * In-process implementation of the document-store port with MongoDB semantics (collection.ts), including
 * all-or-nothing transactions (transactions.ts).
 */
import type { Doc, DocumentCollection, DocumentStore, TransactionScope } from '../../lib/ports/documents.ts';
import { MemoryCollection } from './collection.ts';
import { MemoryTransactions } from './transactions.ts';

class MemoryDocumentStore implements DocumentStore {
  readonly kind = 'memory' as const;
  readonly #collections = new Map<string, MemoryCollection>();
  readonly #transactions = new MemoryTransactions();

  collection<T extends object = Doc>(name: string): DocumentCollection<T> {
    let collection = this.#collections.get(name);
    if (!collection) {
      collection = new MemoryCollection(name, this.#transactions);
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

  changeCount(collections: readonly string[]): number {
    // A sum of counters that only grow grows whenever any of them does.
    let count = 0;
    for (const name of collections) count += this.#collections.get(name)?.changeCount() ?? 0;
    return count;
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {
    this.#collections.clear();
  }
}

export function createMemoryDocumentStore(): DocumentStore {
  return new MemoryDocumentStore();
}
