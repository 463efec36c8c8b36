import { DelayedError, Queue, Worker } from 'bullmq';
import type { Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { DeliveryJob, DeliveryProcessor, DeliveryQueue } from '../../lib/ports/queue.ts';

export interface BullmqDeliveryQueueOptions {
  /** Shared connection, used as is for producing; the worker gets its own duplicates. Never closed here. */
  connection: Redis;
  queueName: string;
  prefix?: string;
  /** How long a worker's lock on a running job lasts without renewal (BullMQ default 30 s). */
  lockDurationMs?: number;
  /** How often workers look for jobs whose lock expired, i.e. whose worker died (BullMQ default 30 s). */
  stalledIntervalMs?: number;
  /** Delay before re-running an attempt whose processor threw. */
  errorRetryDelayMs?: number;
  /** How many times a throwing processor is retried before BullMQ fails the job. */
  maxErrorRetries?: number;
  onError?: (error: unknown, deliveryId?: string) => void;
  /** Deletes the queue and every job in it on close: for a queue no other process can ever consume. */
  removeOnClose?: boolean;
}

/** What is stored: the job, and how many times it was deferred (started without an attempt). */
type QueuedJob = DeliveryJob & { deferrals?: number };

/**
 * A job killed mid-attempt (crash, SIGKILL, deploy) is put back this many times; beyond that it is
 * probably what kills the worker, and BullMQ fails it.
 */
const MAX_STALLED_COUNT = 3;

/**
 * Retry scheduling. The processor decides each delay, so a `{ retryInMs }` result moves the job to the
 * delayed set with `job.moveToDelayed` and throws BullMQ's DelayedError, which tells the worker the job was
 * already moved. That path does not count as a BullMQ failure (`attemptsMade` stays put), which leaves
 * BullMQ's own `attempts` + fixed `backoff` for what it is good at: bounded retries of a processor that
 * threw. The attempt number given to the processor is `attemptsStarted`, which grows on every start:
 * after delays, after errors, and after a stalled attempt, so a number is never reused for two sends. A
 * `{ deferInMs }` result moves the job the same way, but counts a deferral in the job's data, and deferrals
 * are subtracted from the attempt number: nothing was sent.
 */
export function createBullmqDeliveryQueue(options: BullmqDeliveryQueueOptions): DeliveryQueue {
  return new BullmqDeliveryQueue(options);
}

class BullmqDeliveryQueue implements DeliveryQueue {
  readonly kind = 'bullmq' as const;
  readonly #options: BullmqDeliveryQueueOptions;
  readonly #onError: (error: unknown, deliveryId?: string) => void;
  readonly #queue: Queue<QueuedJob>;
  #worker: Worker<QueuedJob> | undefined;
  #workerConnection: Redis | undefined;

  constructor(options: BullmqDeliveryQueueOptions) {
    this.#options = options;
    this.#onError = options.onError ?? (() => {});
    this.#queue = new Queue<QueuedJob>(options.queueName, {
      connection: options.connection,
      ...defined({ prefix: options.prefix }),
    });
    this.#queue.on('error', (error) => this.#onError(error));
  }

  async enqueue(jobs: DeliveryJob[]): Promise<void> {
    if (jobs.length === 0) return;
    const opts = {
      attempts: 1 + (this.#options.maxErrorRetries ?? 5),
      backoff: { type: 'fixed', delay: this.#options.errorRetryDelayMs ?? 5000 },
      // A finished job goes at once (kept, BullMQ's script would also trim the finished set on every job): the
      // delivery's record says it finished, and forwarding an entry again skips deliveries that did. Failed jobs stay
      // a while for inspection.
      removeOnComplete: true,
      removeOnFail: { age: 24 * 3600, count: 1000 },
    };
    // jobId = deliveryId makes BullMQ ignore a job it already holds.
    await this.#queue.addBulk(
      jobs.map((job) => ({ name: job.event, data: job, opts: { ...opts, jobId: job.deliveryId } })),
    );
  }

  async consume(processor: DeliveryProcessor, { concurrency }: { concurrency: number }): Promise<void> {
    if (this.#worker) throw new Error('Delivery queue already has a consumer');
    // BullMQ requires maxRetriesPerRequest: null on worker connections; the shared one keeps failing fast.
    this.#workerConnection = this.#options.connection.duplicate({ maxRetriesPerRequest: null });
    const worker = new Worker<QueuedJob>(
      this.#options.queueName,
      async (job: Job<QueuedJob>, token?: string) => {
        const { deferrals = 0, ...delivery } = job.data;
        const { retryInMs, deferInMs } = await processor(delivery, job.attemptsStarted - deferrals);
        if (deferInMs !== undefined) await job.updateData({ ...job.data, deferrals: deferrals + 1 });
        const delay = deferInMs ?? retryInMs;
        if (delay === undefined) return;
        await job.moveToDelayed(Date.now() + delay, token);
        throw new DelayedError();
      },
      {
        connection: this.#workerConnection,
        concurrency,
        maxStalledCount: MAX_STALLED_COUNT,
        ...defined({
          prefix: this.#options.prefix,
          lockDuration: this.#options.lockDurationMs,
          stalledInterval: this.#options.stalledIntervalMs,
        }),
      },
    );
    worker.on('error', (error) => this.#onError(error));
    worker.on('failed', (job, error) => this.#onError(error, job?.data.deliveryId));
    this.#worker = worker;
    await worker.waitUntilReady();
  }

  async pendingCount(): Promise<number> {
    const counts = await this.#queue.getJobCounts('waiting', 'delayed', 'active', 'prioritized');
    return Object.values(counts).reduce((sum, count) => sum + count, 0);
  }

  async close(): Promise<void> {
    // Against a Redis that is not up, every command would wait for it: nothing can be running, so do not wait.
    const up = this.#options.connection.status === 'ready';
    await this.#worker?.close(!up);
    if (this.#options.removeOnClose && up) await this.#queue.obliterate({ force: true }).catch((error) => this.#onError(error));
    await this.#queue.close();
    if (this.#workerConnection?.status === 'ready') await this.#workerConnection.quit().catch(() => {});
    else this.#workerConnection?.disconnect();
  }
}

/** BullMQ merges options over its defaults with Object.assign, so an explicit undefined would erase a default. */
function defined<T extends Record<string, unknown>>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as Partial<T>;
}
