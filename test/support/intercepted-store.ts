import { createMemoryDocumentStore } from '../../adapters/memory/documents.ts';
import type { DocumentCollection, DocumentStore } from '../../lib/ports/documents.ts';

/**
 * Runs before each collection call of the store: throwing (or rejecting) fails that call, awaiting holds it.
 * `method` is the collection method's name, e.g. `insertOne` or `deleteMany`.
 */
export type Interceptor = (collection: string, method: string) => void | Promise<void>;

/** The embedded document store, with every collection call passing through `intercept` first (fault tests). */
export function interceptedStore(intercept: Interceptor): DocumentStore {
  const inner = createMemoryDocumentStore();
  return {
    kind: inner.kind,
    ping: () => inner.ping(),
    close: () => inner.close(),
    transaction: (work) => inner.transaction(work),
    currentTransaction: () => inner.currentTransaction(),
    outsideTransaction: (work) => inner.outsideTransaction(work),
    // Every read must reach the interceptor, as every read reaches a database: nothing is remembered.
    changeCount: () => undefined,
    collection<T extends object>(name: string): DocumentCollection<T> {
      const collection = inner.collection<T>(name);
      return new Proxy(collection, {
        get(target, property) {
          const value: unknown = Reflect.get(target, property, target);
          if (typeof value !== 'function') return value;
          return async (...args: unknown[]) => {
            await intercept(name, String(property));
            return Reflect.apply(value, target, args) as unknown;
          };
        },
      });
    },
  };
}
