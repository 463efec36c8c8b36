/**
 * Transactions of the in-memory document store: an undo log per transaction, carried through the
 * asynchronous context. Every change of a stored document inside the transaction records its before and
 * after images; an abort puts the before images back, newest first. Like a MongoDB transaction it is
 * all-or-nothing; unlike one it does not isolate: concurrent requests may read what it has not committed yet
 * (which is why the outbox writes its entries as the last step, when nothing can fail any more).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Doc, TransactionScope } from '../../lib/ports/documents.ts';

/** A collection that can put a document back as it was. */
export interface Restorable {
  /**
   * Makes `previous` (absent: no document) the stored document `id` again, only while `expected` is still
   * the stored one: a later change by someone outside the transaction stands.
   */
  restore(id: string, expected: Doc | undefined, previous: Doc | undefined): void;
}

interface Change {
  collection: Restorable;
  id: string;
  before: Doc | undefined;
  after: Doc | undefined;
}

class MemoryTransaction implements TransactionScope {
  readonly changes: Change[] = [];
  readonly steps: Array<() => Promise<void>> = [];
  readonly callbacks: Array<() => Promise<void> | void> = [];
  open = true;

  beforeCommit(step: () => Promise<void>): void {
    this.steps.push(step);
  }

  afterCommit(callback: () => Promise<void> | void): void {
    this.callbacks.push(callback);
  }
}

export class MemoryTransactions {
  readonly #context = new AsyncLocalStorage<MemoryTransaction | undefined>();

  current(): MemoryTransaction | undefined {
    const transaction = this.#context.getStore();
    return transaction?.open ? transaction : undefined;
  }

  /** Called by collections for every change of a stored document (stored objects are never mutated). */
  record(collection: Restorable, id: string, before: Doc | undefined, after: Doc | undefined): void {
    this.current()?.changes.push({ collection, id, before, after });
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.current()) return work();
    const transaction = new MemoryTransaction();
    let result: T;
    try {
      result = await this.#context.run(transaction, async () => {
        const value = await work();
        // A step may add further steps (index-based on purpose).
        for (let i = 0; i < transaction.steps.length; i += 1) await transaction.steps[i]!();
        return value;
      });
    } catch (error) {
      transaction.open = false;
      for (const change of transaction.changes.reverse()) change.collection.restore(change.id, change.after, change.before);
      throw error;
    }
    transaction.open = false;
    await this.outside(async () => {
      for (const callback of transaction.callbacks) await Promise.resolve().then(callback).catch(() => undefined);
    });
    return result;
  }

  outside<T>(work: () => Promise<T>): Promise<T> {
    return this.#context.run(undefined, work);
  }
}
