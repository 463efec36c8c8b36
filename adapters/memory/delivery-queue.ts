import type { DeliveryJob, DeliveryProcessor, DeliveryQueue } from '../../lib/ports/queue.ts';

/** A job as a durable queue keeps it: what to deliver, attempts started, processor errors, when it is due. */
export interface StoredDelivery {
  job: DeliveryJob;
  attempt: number;
  errors: number;
  runAt: number;
}

/**
 * Where a durable queue writes what happens to its jobs (the SQLite store). Each call resolves once durable; the
 * queue waits for `added` before a job counts as enqueued, and for `started` before an attempt is made, so that after
 * a crash an attempt that may have been sent is never given the same number again.
 */
export interface DeliveryJournal {
  added(deliveries: readonly StoredDelivery[]): Promise<void>;
  started(deliveryId: string, attempt: number): Promise<void>;
  /** The job waits until `runAt` for its next attempt. */
  scheduled(delivery: StoredDelivery): Promise<void>;
  finished(deliveryId: string): Promise<void>;
}

export interface MemoryDeliveryQueueOptions {
  kind?: DeliveryQueue['kind'];
  /** Delay before re-running an attempt whose processor threw. */
  errorRetryDelayMs?: number;
  /** How many times a throwing processor is retried before the job is dropped. */
  maxErrorRetries?: number;
  onError?: (error: unknown, deliveryId: string) => void;
  journal?: DeliveryJournal;
  /** Jobs read back from durable storage: each resumes at its `runAt`. */
  restored?: readonly StoredDelivery[];
}

interface Entry {
  job: DeliveryJob;
  attempt: number;
  errors: number;
  timer?: NodeJS.Timeout;
}

/**
 * The embedded queue, with the same contract as BullMQ. In memory mode jobs live as long as the process; with a
 * journal (the SQLite store) they survive it, each resuming on its schedule.
 */
export function createMemoryDeliveryQueue(options: MemoryDeliveryQueueOptions = {}): DeliveryQueue {
  return new MemoryDeliveryQueue(options);
}

class MemoryDeliveryQueue implements DeliveryQueue {
  readonly kind: DeliveryQueue['kind'];
  readonly #errorRetryDelayMs: number;
  readonly #maxErrorRetries: number;
  readonly #onError: (error: unknown, deliveryId: string) => void;
  readonly #journal: DeliveryJournal | undefined;
  /** Every known job, whether ready, delayed or running: the de-duplication set. */
  readonly #entries = new Map<string, Entry>();
  readonly #ready: Entry[] = [];
  readonly #inFlight = new Set<Promise<void>>();
  #processor: DeliveryProcessor | undefined;
  #concurrency = 0;
  #closed = false;

  constructor(options: MemoryDeliveryQueueOptions) {
    this.kind = options.kind ?? 'memory';
    this.#errorRetryDelayMs = options.errorRetryDelayMs ?? 5000;
    this.#maxErrorRetries = options.maxErrorRetries ?? 5;
    this.#onError = options.onError ?? (() => {});
    this.#journal = options.journal;
    const now = Date.now();
    for (const stored of options.restored ?? []) {
      const entry: Entry = { job: stored.job, attempt: stored.attempt, errors: stored.errors };
      this.#entries.set(stored.job.deliveryId, entry);
      this.#runAt(entry, stored.runAt - now);
    }
  }

  async enqueue(jobs: DeliveryJob[]): Promise<void> {
    if (this.#closed) throw new Error('Delivery queue is closed');
    const fresh: Entry[] = [];
    for (const job of jobs) {
      if (this.#entries.has(job.deliveryId)) continue;
      // A copy, as BullMQ would serialize it: later changes by the caller must not leak into the delivery.
      const entry: Entry = { job: structuredClone(job), attempt: 0, errors: 0 };
      this.#entries.set(job.deliveryId, entry);
      fresh.push(entry);
    }
    if (fresh.length > 0 && this.#journal) {
      const now = Date.now();
      try {
        await this.#journal.added(fresh.map((entry) => ({ job: entry.job, attempt: 0, errors: 0, runAt: now })));
      } catch (error) {
        for (const entry of fresh) this.#entries.delete(entry.job.deliveryId);
        throw error;
      }
    }
    this.#ready.push(...fresh);
    this.#pump();
  }

  async consume(processor: DeliveryProcessor, { concurrency }: { concurrency: number }): Promise<void> {
    if (this.#closed) throw new Error('Delivery queue is closed');
    if (this.#processor) throw new Error('Delivery queue already has a consumer');
    if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error('concurrency must be a positive integer');
    this.#processor = processor;
    this.#concurrency = concurrency;
    this.#pump();
  }

  async pendingCount(): Promise<number> {
    return this.#entries.size;
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const entry of this.#entries.values()) clearTimeout(entry.timer);
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
  }

  #pump(): void {
    const processor = this.#processor;
    if (!processor || this.#closed) return;
    while (this.#inFlight.size < this.#concurrency) {
      const entry = this.#ready.shift();
      if (!entry) return;
      const attempt: Promise<void> = this.#attempt(processor, entry).finally(() => {
        this.#inFlight.delete(attempt);
        this.#pump();
      });
      this.#inFlight.add(attempt);
    }
  }

  async #attempt(processor: DeliveryProcessor, entry: Entry): Promise<void> {
    const { deliveryId } = entry.job;
    entry.attempt += 1;
    try {
      await this.#journal?.started(deliveryId, entry.attempt);
    } catch (error) {
      // Not recorded, so not made: the same attempt runs again later.
      entry.attempt -= 1;
      this.#onError(error, deliveryId);
      this.#runAt(entry, this.#errorRetryDelayMs);
      return;
    }
    let retryInMs: number | undefined;
    try {
      const result = await processor(structuredClone(entry.job), entry.attempt);
      retryInMs = result.deferInMs ?? result.retryInMs;
      if (result.deferInMs !== undefined) entry.attempt -= 1;
    } catch (error) {
      entry.errors += 1;
      this.#onError(error, deliveryId);
      if (entry.errors <= this.#maxErrorRetries) retryInMs = this.#errorRetryDelayMs;
    }
    if (retryInMs === undefined) {
      this.#entries.delete(deliveryId);
      // Not waited for, so that the slot goes to the next job at once: a job whose removal does not reach the journal (a
      // crash, a failed write) runs again at the next start with the next number, as after a crash before it (the
      // webhook processor then finds its delivery finished and sends nothing).
      void this.#journal?.finished(deliveryId).catch((error: unknown) => this.#onError(error, deliveryId));
      return;
    }
    // A closing queue keeps its journalled jobs for the next start; an in-memory one has nowhere to keep them.
    if (this.#closed && !this.#journal) {
      this.#entries.delete(deliveryId);
      return;
    }
    await this.#journal?.scheduled({ job: entry.job, attempt: entry.attempt, errors: entry.errors, runAt: Date.now() + retryInMs })
      .catch((error: unknown) => this.#onError(error, deliveryId));
    if (!this.#closed) this.#runAt(entry, retryInMs);
  }

  /** Puts the entry in line now (a delay of 0 or less) or once the delay has passed. */
  #runAt(entry: Entry, delayMs: number): void {
    if (delayMs <= 0) {
      this.#ready.push(entry);
      this.#pump();
      return;
    }
    entry.timer = setTimeout(() => {
      entry.timer = undefined;
      this.#ready.push(entry);
      this.#pump();
    }, delayMs);
    // Pending retries must not keep an otherwise finished process alive.
    entry.timer.unref();
  }
}
