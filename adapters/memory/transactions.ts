/**
 * Transactions of the embedded document store, carried through the asynchronous context, with read-committed
 * isolation (as PostgreSQL's default):
 *
 * - A transaction's writes go to its own overlay (per collection: document id → new version, or removed); its reads
 *   see the committed documents with its overlay on top, everyone else sees committed documents only.
 * - Writing a document takes that document's lock until the transaction ends. Another writer of a locked document
 *   waits for the holder to end, then plans its operation again against the latest committed version: operator
 *   updates (`$inc`, `$push`, …) of concurrent transactions all apply, none is lost.
 * - A unique key (or `_id`) an uncommitted transaction holds makes a conflicting insert or update fail at once with
 *   DuplicateKeyError; an upsert waits instead, and then finds the document the other transaction committed.
 * - A wait that would close a cycle (a deadlock), or that lasts longer than LOCK_WAIT_MS, fails the waiting operation
 *   with TransactionConflictError, which the HTTP layer answers with 503 (the transaction then aborts).
 *   Transactions are not re-run: the work may have done what cannot be undone (sent a message).
 * - A write outside any transaction is a transaction of one operation: it respects locks and is applied at once.
 *
 * Commit: the last steps run, then every overlay is applied to the committed state in one synchronous step (locks
 * released, waiters woken) and handed to the store's durability, whose promise the commit waits for. When the
 * changes cannot be made durable, the durability layer puts the committed state back and the commit rejects.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { TransactionConflictError, type Doc, type TransactionScope } from '../../lib/ports/documents.ts';

/** Longest a write waits for another transaction's lock before it gives up. */
const LOCK_WAIT_MS = 5000;

/** One change made to a collection's committed state. */
export interface CommittedChange {
  readonly collection: Participant;
  /** The document's key in its collection. */
  readonly id: string;
  /** The version replaced; left undefined by a collection that writes through (`written`), whose changes need none. */
  readonly before: Doc | undefined;
  readonly after: Doc | undefined;
  /** Already written to the durable store with the change (a disk-resident collection): nothing left to write. */
  readonly written?: boolean;
}

/** A collection, as transactions see it. */
export interface Participant {
  readonly name: string;
  /** Applies the transaction's writes to the committed state, appending what changed to `changes`. */
  commitWrites(transaction: MemoryTransaction, changes: CommittedChange[]): void;
  /** Drops the transaction's locks, key reservations and writes (it committed or aborted). */
  release(transaction: MemoryTransaction): void;
  /**
   * Makes `previous` (absent: no document) the stored document `id` again, only while `expected` is still the stored
   * one: used to undo changes that could not be made durable, newest first.
   */
  restore(id: string, expected: Doc | undefined, previous: Doc | undefined): void;
}

/** Makes committed changes durable. The in-memory store has none: a change is as durable as it gets once made. */
export interface Durability {
  /**
   * Called synchronously once `changes` were applied, in commit order. Resolves once they are durable; when they
   * cannot be made durable, every change not yet durable is undone (`restore`, newest first) and it rejects.
   */
  persist(changes: readonly CommittedChange[]): Promise<void>;
}

/** Thrown while planning a write that touches what another transaction holds: wait for it, then plan again. */
export class MustWait {
  readonly holder: MemoryTransaction;
  constructor(holder: MemoryTransaction) {
    this.holder = holder;
  }
}

export class MemoryTransaction implements TransactionScope {
  readonly steps: Array<() => Promise<void>> = [];
  readonly callbacks: Array<() => Promise<void> | void> = [];
  readonly abortCallbacks: Array<() => void> = [];
  /** The collections this transaction wrote to, each with its overlay: document id → new version, or null (removed). */
  readonly writes = new Map<Participant, Map<string, Doc | null>>();
  open = true;
  /** The transaction this one waits for, to find cycles. */
  waitingFor: MemoryTransaction | undefined;
  readonly #ended = Promise.withResolvers<void>();

  beforeCommit(step: () => Promise<void>): void {
    this.steps.push(step);
  }

  afterCommit(callback: () => Promise<void> | void): void {
    this.callbacks.push(callback);
  }

  afterAbort(callback: () => void): void {
    this.abortCallbacks.push(callback);
  }

  /** Tells those waiting for an abort (once). */
  aborted(): void {
    for (const callback of this.abortCallbacks.splice(0)) callback();
  }

  /** The overlay of one collection, created on first use. */
  overlay(collection: Participant): Map<string, Doc | null> {
    let overlay = this.writes.get(collection);
    if (!overlay) {
      overlay = new Map();
      this.writes.set(collection, overlay);
    }
    return overlay;
  }

  /** Resolves once the transaction committed or aborted. */
  get ended(): Promise<void> {
    return this.#ended.promise;
  }

  end(): void {
    this.open = false;
    for (const collection of this.writes.keys()) collection.release(this);
    this.writes.clear();
    this.#ended.resolve();
  }
}

export class MemoryTransactions {
  readonly #context = new AsyncLocalStorage<MemoryTransaction | undefined>();
  readonly #durability: Durability | undefined;

  constructor(durability?: Durability) {
    this.#durability = durability;
  }

  current(): MemoryTransaction | undefined {
    const transaction = this.#context.getStore();
    return transaction?.open ? transaction : undefined;
  }

  /**
   * Runs one write operation. `attempt` plans it against what the transaction sees and applies it (to the overlay,
   * or outside a transaction to the committed state, appending to `changes`); it throws MustWait, before changing
   * anything, when it touches what another transaction holds, and is then run again once that one ended.
   */
  async write<R>(attempt: (transaction: MemoryTransaction | undefined, changes: CommittedChange[]) => R): Promise<R> {
    const transaction = this.current();
    const deadline = Date.now() + LOCK_WAIT_MS;
    for (;;) {
      const changes: CommittedChange[] = [];
      let result: R;
      try {
        result = attempt(transaction, changes);
      } catch (error) {
        // Outside a transaction an operation stands as far as it went (an insertMany up to its first duplicate).
        if (changes.length > 0) await this.#persist(changes);
        if (!(error instanceof MustWait)) throw error;
        await this.#wait(transaction, error.holder, deadline);
        continue;
      }
      if (changes.length > 0) await this.#persist(changes);
      return result;
    }
  }

  async #wait(waiter: MemoryTransaction | undefined, holder: MemoryTransaction, deadline: number): Promise<void> {
    if (waiter) {
      // A write outside a transaction holds nothing, so only a transaction's wait can close a cycle.
      for (let step: MemoryTransaction | undefined = holder; step; step = step.waitingFor) {
        if (step === waiter) throw new TransactionConflictError('deadlock: two transactions wait for each other');
      }
      waiter.waitingFor = holder;
    }
    const remaining = deadline - Date.now();
    let timer: NodeJS.Timeout | undefined;
    try {
      const outcome = await Promise.race([
        holder.ended.then(() => 'ended' as const),
        new Promise<'late'>((resolve) => {
          timer = setTimeout(() => resolve('late'), Math.max(0, remaining));
        }),
      ]);
      if (outcome === 'late')
        throw new TransactionConflictError(`a document stayed locked by another transaction for ${LOCK_WAIT_MS} ms`);
    } finally {
      clearTimeout(timer);
      if (waiter) waiter.waitingFor = undefined;
    }
  }

  /** Hands the removals of expired documents to the durability layer: nobody waits for them. */
  expired(changes: readonly CommittedChange[]): void {
    this.#durability?.persist(changes).catch(() => undefined);
  }

  #persist(changes: readonly CommittedChange[]): Promise<void> {
    return this.#durability ? this.#durability.persist(changes) : Promise.resolve();
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
      transaction.end();
      transaction.aborted();
      throw error;
    }
    const changes: CommittedChange[] = [];
    try {
      for (const collection of transaction.writes.keys()) collection.commitWrites(transaction, changes);
    } catch (error) {
      transaction.aborted();
      throw error;
    } finally {
      transaction.end();
    }
    if (changes.length > 0) {
      try {
        await this.#persist(changes);
      } catch (error) {
        // Undone by the durability layer: the transaction did not happen.
        transaction.aborted();
        throw error;
      }
    }
    await this.outside(async () => {
      for (const callback of transaction.callbacks)
        await Promise.resolve()
          .then(callback)
          .catch(() => undefined);
    });
    return result;
  }

  outside<T>(work: () => Promise<T>): Promise<T> {
    return this.#context.run(undefined, work);
  }
}
