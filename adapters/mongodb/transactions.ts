/**
 * Transactions over the driver's sessions. The session travels in the asynchronous context, so a
 * repository's call inside `transaction()` joins it without taking a parameter. Operations of one
 * transaction are sent one at a time: the server refuses concurrent commands that would each try to start
 * or continue the same transaction.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { ClientSession, MongoClient } from 'mongodb';
import type { TransactionScope } from '../../lib/ports/documents.ts';

class MongoTransaction implements TransactionScope {
  readonly session: ClientSession;
  readonly steps: Array<() => Promise<void>> = [];
  readonly callbacks: Array<() => Promise<void> | void> = [];
  readonly abortCallbacks: Array<() => void> = [];
  open = true;
  #last: Promise<unknown> = Promise.resolve();

  constructor(session: ClientSession) {
    this.session = session;
  }

  beforeCommit(step: () => Promise<void>): void {
    this.steps.push(step);
  }

  afterCommit(callback: () => Promise<void> | void): void {
    this.callbacks.push(callback);
  }

  afterAbort(callback: () => void): void {
    this.abortCallbacks.push(callback);
  }

  serial<R>(operation: () => Promise<R>): Promise<R> {
    const next = this.#last.then(operation, operation);
    this.#last = next.catch(() => undefined);
    return next;
  }
}

/** How many times a commit whose outcome is unknown (the primary stepped down, the network dropped) is retried. */
const COMMIT_RETRIES = 3;

function hasLabel(error: unknown, label: string): boolean {
  const check = (error as { hasErrorLabel?: (name: string) => boolean } | null)?.hasErrorLabel;
  return typeof check === 'function' && check.call(error, label);
}

export class MongoTransactions {
  readonly #client: MongoClient;
  readonly #context = new AsyncLocalStorage<MongoTransaction | undefined>();

  constructor(client: MongoClient) {
    this.#client = client;
  }

  current(): MongoTransaction | undefined {
    const transaction = this.#context.getStore();
    return transaction?.open ? transaction : undefined;
  }

  /** Runs one driver operation with the current transaction's session, if any. */
  operate<R>(operation: (session: ClientSession | undefined) => Promise<R>): Promise<R> {
    const transaction = this.current();
    if (!transaction) return operation(undefined);
    // An operation left running when the transaction ended (not awaited by its work) runs on its own.
    return transaction.serial(() => operation(transaction.open ? transaction.session : undefined));
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.current()) return work();
    const session = this.#client.startSession();
    const transaction = new MongoTransaction(session);
    let result: T;
    try {
      session.startTransaction({ readConcern: { level: 'snapshot' }, writeConcern: { w: 'majority' } });
      result = await this.#context.run(transaction, async () => {
        const value = await work();
        for (let i = 0; i < transaction.steps.length; i += 1) await transaction.steps[i]!();
        return value;
      });
      transaction.open = false;
      await commit(session);
    } catch (error) {
      transaction.open = false;
      if (session.inTransaction()) await session.abortTransaction().catch(() => undefined);
      for (const callback of transaction.abortCallbacks.splice(0)) callback();
      throw error;
    } finally {
      await session.endSession().catch(() => undefined);
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

async function commit(session: ClientSession): Promise<void> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      await session.commitTransaction();
      return;
    } catch (error) {
      if (attempt >= COMMIT_RETRIES || !hasLabel(error, 'UnknownTransactionCommitResult')) throw error;
    }
  }
}
