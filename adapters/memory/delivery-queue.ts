import type { DeliveryJob, DeliveryProcessor, DeliveryQueue } from '../../lib/ports/queue.ts';

export interface MemoryDeliveryQueueOptions {
  /** Delay before re-running an attempt whose processor threw. */
  errorRetryDelayMs?: number;
  /** How many times a throwing processor is retried before the job is dropped. */
  maxErrorRetries?: number;
  onError?: (error: unknown, deliveryId: string) => void;
}

interface Entry {
  job: DeliveryJob;
  attempt: number;
  errors: number;
  timer?: NodeJS.Timeout;
}

/** The embedded-mode queue: same contract as BullMQ, but jobs live only as long as the process. */
export function createMemoryDeliveryQueue(options: MemoryDeliveryQueueOptions = {}): DeliveryQueue {
  return new MemoryDeliveryQueue(options);
}

class MemoryDeliveryQueue implements DeliveryQueue {
  readonly kind = 'memory' as const;
  readonly #errorRetryDelayMs: number;
  readonly #maxErrorRetries: number;
  readonly #onError: (error: unknown, deliveryId: string) => void;
  /** Every known job, whether ready, delayed or running: the de-duplication set. */
  readonly #entries = new Map<string, Entry>();
  readonly #ready: Entry[] = [];
  readonly #inFlight = new Set<Promise<void>>();
  #processor: DeliveryProcessor | undefined;
  #concurrency = 0;
  #closed = false;

  constructor(options: MemoryDeliveryQueueOptions) {
    this.#errorRetryDelayMs = options.errorRetryDelayMs ?? 5000;
    this.#maxErrorRetries = options.maxErrorRetries ?? 5;
    this.#onError = options.onError ?? (() => {});
  }

  async enqueue(jobs: DeliveryJob[]): Promise<void> {
    if (this.#closed) throw new Error('Delivery queue is closed');
    for (const job of jobs) {
      if (this.#entries.has(job.deliveryId)) continue;
      // A copy, as BullMQ would serialize it: later changes by the caller must not leak into the delivery.
      const entry: Entry = { job: structuredClone(job), attempt: 0, errors: 0 };
      this.#entries.set(job.deliveryId, entry);
      this.#ready.push(entry);
    }
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
    entry.attempt += 1;
    let retryInMs: number | undefined;
    try {
      const result = await processor(structuredClone(entry.job), entry.attempt);
      retryInMs = result.deferInMs ?? result.retryInMs;
      if (result.deferInMs !== undefined) entry.attempt -= 1;
    } catch (error) {
      entry.errors += 1;
      this.#onError(error, entry.job.deliveryId);
      if (entry.errors <= this.#maxErrorRetries) retryInMs = this.#errorRetryDelayMs;
    }
    if (retryInMs === undefined || this.#closed) {
      this.#entries.delete(entry.job.deliveryId);
      return;
    }
    entry.timer = setTimeout(() => {
      entry.timer = undefined;
      this.#ready.push(entry);
      this.#pump();
    }, retryInMs);
    // Pending retries must not keep an otherwise finished process alive.
    entry.timer.unref();
  }
}
