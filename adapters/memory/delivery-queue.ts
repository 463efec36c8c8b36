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
 * queue waits for `added` before a job counts as enqueued, and for `scheduled` before a retry's timer is set. Unless
 * the journal shares the documents' commits (`withDocuments`), it waits for `started` before an attempt is made, so
 * that after a crash an attempt that may have been sent is never given the same number again, and writes the job's
 * end once the attempt's outcome is recorded without waiting for `finished`: a job whose removal did not reach the
 * disk is made again with the next number, and the webhook processor finds its delivery finished and sends nothing.
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
   * The journal is written to the file the documents are kept in (the SQLite store), where the writes made in one turn
   * of the event loop commit together and commits are made in order. Then a job is written in the commit of its
   * deliveries' records (`enqueue`), and its end or next run in the commit of the attempt's recorded outcome; no start
   * is written: after a crash, an attempt whose outcome did not reach the disk is made again with the same number (as
   * BullMQ does with a job whose worker died), and one whose outcome did is not made again.
   */
  withDocuments?: boolean;
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
  readonly #withDocuments: boolean;
  /** Every known job, whether ready, delayed or running: the de-duplication set. */
  readonly #entries = new Map<string, Entry>();
  readonly #ready: Entry[] = [];
  readonly #inFlight = new Set<Promise<void>>();
  /** Attempts that gave up their slot and wait for their recorded outcome to be durable. */
  readonly #settling = new Set<Promise<void>>();
  #processor: DeliveryProcessor | undefined;
  #concurrency = 0;
  #closed = false;

  constructor(options: MemoryDeliveryQueueOptions) {
    this.kind = options.kind ?? 'memory';
    this.#errorRetryDelayMs = options.errorRetryDelayMs ?? 5000;
    this.#maxErrorRetries = options.maxErrorRetries ?? 5;
    this.#onError = options.onError ?? (() => {});
    this.#journal = options.journal;
    this.#withDocuments = options.journal !== undefined && options.withDocuments === true;
    const now = Date.now();
    for (const stored of options.restored ?? []) {
      const entry: Entry = { job: stored.job, attempt: stored.attempt, errors: stored.errors };
      this.#entries.set(stored.job.deliveryId, entry);
      this.#runAt(entry, stored.runAt - now);
    }
  }

  async enqueue(jobs: DeliveryJob[], records?: () => Promise<void>): Promise<void> {
    if (this.#closed) throw new Error('Delivery queue is closed');
    if (records && !this.#withDocuments) await records();
    const fresh: Entry[] = [];
    for (const job of jobs) {
      if (this.#entries.has(job.deliveryId)) continue;
      // A copy, as BullMQ would serialize it: later changes by the caller must not leak into the delivery (every field is
      // a string or a number).
      const entry: Entry = { job: { ...job }, attempt: 0, errors: 0 };
      this.#entries.set(job.deliveryId, entry);
      fresh.push(entry);
    }
    if (this.#journal) {
      const now = Date.now();
      // With the documents, written in this turn as the records are: one commit holds both.
      const written = this.#withDocuments ? records?.() : undefined;
      const added =
        fresh.length > 0
          ? this.#journal.added(fresh.map((entry) => ({ job: entry.job, attempt: 0, errors: 0, runAt: now })))
          : undefined;
      const [recordsOutcome, jobsOutcome] = await Promise.allSettled([written, added]);
      if (recordsOutcome.status === 'rejected' || jobsOutcome.status === 'rejected') {
        for (const entry of fresh) {
          this.#entries.delete(entry.job.deliveryId);
          // Stored in a commit whose records were refused: withdrawn, so that no restart runs them.
          if (added && jobsOutcome.status === 'fulfilled')
            void this.#journal
              .finished(entry.job.deliveryId)
              .catch((error: unknown) => this.#onError(error, entry.job.deliveryId));
        }
        throw recordsOutcome.status === 'rejected'
          ? recordsOutcome.reason
          : (jobsOutcome as PromiseRejectedResult).reason;
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
    while (this.#inFlight.size > 0 || this.#settling.size > 0)
      await Promise.allSettled([...this.#inFlight, ...this.#settling]);
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
    if (this.#journal && !this.#withDocuments) {
      try {
        await this.#journal.started(deliveryId, entry.attempt);
      } catch (error) {
        // Not recorded, so not made: the same attempt runs again later.
        entry.attempt -= 1;
        this.#onError(error, deliveryId);
        this.#runAt(entry, this.#errorRetryDelayMs);
        return;
      }
    }
    let retryInMs: number | undefined;
    let recorded: Promise<void> | undefined;
    try {
      const result = await processor({ ...entry.job }, entry.attempt);
      retryInMs = result.deferInMs ?? result.retryInMs;
      if (result.deferInMs !== undefined) entry.attempt -= 1;
      recorded = result.recorded;
    } catch (error) {
      retryInMs = this.#failed(entry, error);
    }
    if (!recorded) {
      await this.#next(entry, retryInMs);
      return;
    }
    // The slot goes to the next job now; the job stays known (not queued twice) until its outcome is durable.
    const settling: Promise<void> = this.#settle(entry, retryInMs, recorded).finally(() =>
      this.#settling.delete(settling),
    );
    this.#settling.add(settling);
  }

  /** A processor that threw: the delay before the attempt is made again, or undefined once it threw too often. */
  #failed(entry: Entry, error: unknown): number | undefined {
    entry.errors += 1;
    this.#onError(error, entry.job.deliveryId);
    return entry.errors <= this.#maxErrorRetries ? this.#errorRetryDelayMs : undefined;
  }

  /** Waits for an attempt's recorded outcome, then forgets the job or puts it back in line. */
  async #settle(entry: Entry, retryInMs: number | undefined, recorded: Promise<void>): Promise<void> {
    if (!this.#withDocuments) {
      try {
        await recorded;
      } catch (error) {
        await this.#next(entry, this.#failed(entry, error));
        return;
      }
      await this.#next(entry, retryInMs);
      return;
    }
    // Written in this turn, as the processor wrote the outcome: one commit holds both, so a crash before it makes the
    // attempt again, and none after it does.
    const { deliveryId } = entry.job;
    const journal = this.#journal!;
    const journalled =
      retryInMs === undefined ? journal.finished(deliveryId) : journal.scheduled(this.#stored(entry, retryInMs));
    try {
      await Promise.all([recorded, journalled]);
    } catch (error) {
      await this.#next(entry, this.#failed(entry, error));
      return;
    }
    if (retryInMs === undefined) this.#entries.delete(deliveryId);
    else if (!this.#closed) this.#runAt(entry, retryInMs);
  }

  /** After an attempt whose outcome is recorded: forgets a finished job, or puts it back in line after `retryInMs`. */
  async #next(entry: Entry, retryInMs: number | undefined): Promise<void> {
    const { deliveryId } = entry.job;
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
      ?.scheduled(this.#stored(entry, retryInMs))
      .catch((error: unknown) => this.#onError(error, deliveryId));
    if (!this.#closed) this.#runAt(entry, retryInMs);
  }

  #stored(entry: Entry, retryInMs: number): StoredDelivery {
    return { job: entry.job, attempt: entry.attempt, errors: entry.errors, runAt: Date.now() + retryInMs };
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
