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
 * queue waits for `added` before a job counts as enqueued, for `scheduled` before a retry's timer is set, and (unless
 * `startsOrdered`) for `started` before an attempt is made, so that after a crash an attempt that may have been sent
 * is never given the same number again. It does not wait for `finished`: the attempt's outcome is recorded by then,
 * so a job whose removal did not reach the disk is made again with the next number, and the webhook processor finds
 * its delivery finished and sends nothing.
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
  /**
   * The processor records an attempt's outcome through the journal's own ordered writes (the SQLite store holding the
   * documents too): an outcome is then durable only once the attempt's start is, so an attempt goes out without
   * waiting for `started`. After a crash, an attempt whose start did not reach the disk is made again with the same
   * number (as BullMQ does with a job whose worker died); one whose start did, with the next, and the webhook
   * processor finds a delivery whose outcome was recorded finished and sends nothing.
   */
  startsOrdered?: boolean;
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
  readonly #startsOrdered: boolean;
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
    this.#startsOrdered = options.startsOrdered ?? false;
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
    const start = this.#journal?.started(deliveryId, entry.attempt);
    if (start && this.#startsOrdered) {
      start.catch((error: unknown) => this.#onError(error, deliveryId));
    } else if (start) {
      try {
        await start;
      } catch (error) {
        // Not recorded, so not made: the same attempt runs again later.
        entry.attempt -= 1;
        this.#onError(error, deliveryId);
        this.#runAt(entry, this.#errorRetryDelayMs);
        return;
      }
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
      // Not waited for (see DeliveryJournal), so that the slot goes to the next job at once.
      void this.#journal?.finished(deliveryId).catch((error: unknown) => this.#onError(error, deliveryId));
      return;
    }
    // A closing queue keeps its journalled jobs for the next start; an in-memory one has nowhere to keep them.
    if (this.#closed && !this.#journal) {
      this.#entries.delete(deliveryId);
      return;
    }
    await this.#journal
      ?.scheduled({ job: entry.job, attempt: entry.attempt, errors: entry.errors, runAt: Date.now() + retryInMs })
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
