import { DelayedError, Queue, Worker } from 'bullmq';
import type { Job, JobsOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import { idOfText } from '../../lib/ids.ts';
import { storedJob } from '../../lib/webhooks/payload.ts';
import type { AttemptResult, DeliveryJob, DeliveryProcessor, DeliveryQueue } from '../../lib/ports/queue.ts';

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

/**
 * What is stored for one delivery: the job, how many times it was deferred (started without an attempt) and,
 * for a delivery that left a batch, how many attempts it had been given there.
 */
type SingleJob = DeliveryJob & { deferrals?: number; attemptsBefore?: number };
/** Several deliveries stored and run as one BullMQ job (see `enqueue`). */
interface BatchJob {
  batch: DeliveryJob[];
}
type QueuedJob = SingleJob | BatchJob;

/** Most deliveries one BullMQ job holds; the jobs of a larger `enqueue` call are stored as several. */
const BATCH_MAX = 16;

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
 *
 * Batches. The deliveries of the `enqueue` calls made in one turn of the event loop (the fan-outs of the outbox
 * entries a relay forwards together) are stored when the turn ends, as one BullMQ job when there are several, up to
 * BATCH_MAX each, a call's deliveries in one job whenever they fit: BullMQ's scripts then run once to add them and
 * once to finish them, instead of once per delivery, which is most of what a delivery costs Redis and the worker.
 * A batch runs its deliveries side by side, within the consumer's concurrency like any other attempt; each delivery
 * that is to be tried again (a retry, a deferral, a processor that threw) leaves the batch as a job of its own under
 * its deliveryId, with the attempts it was given counted in `attemptsBefore`, and follows the rules above. Such jobs
 * are added as soon as the delivery's attempt ended, and before the batch finishes; if adding one fails, the batch
 * runs again, as a stalled job would.
 */
export function createBullmqDeliveryQueue(options: BullmqDeliveryQueueOptions): DeliveryQueue {
  return new BullmqDeliveryQueue(options);
}

class BullmqDeliveryQueue implements DeliveryQueue {
  readonly kind = 'bullmq' as const;
  readonly #options: BullmqDeliveryQueueOptions;
  readonly #onError: (error: unknown, deliveryId?: string) => void;
  readonly #errorRetryDelayMs: number;
  readonly #maxErrorRetries: number;
  readonly #queue: Queue<QueuedJob>;
  #worker: Worker<QueuedJob> | undefined;
  /** `enqueue` calls of this turn of the event loop, stored together when it ends. */
  readonly #pending: Array<{ jobs: DeliveryJob[]; resolve: () => void; reject: (error: unknown) => void }> = [];
  #workerConnection: Redis | undefined;
  /** Set once `close` began: attempts that have not started stay in the queue for the next consumer. */
  #closing = false;

  constructor(options: BullmqDeliveryQueueOptions) {
    this.#options = options;
    this.#errorRetryDelayMs = options.errorRetryDelayMs ?? 5000;
    this.#maxErrorRetries = options.maxErrorRetries ?? 5;
    this.#onError = options.onError ?? (() => {});
    this.#queue = new Queue<QueuedJob>(options.queueName, {
      connection: options.connection,
      ...defined({ prefix: options.prefix }),
    });
    this.#queue.on('error', (error) => this.#onError(error));
  }

  /** How a job is stored; `errorRetries`: how many times a processor that throws is retried (default: all). */
  #jobOptions(errorRetries = this.#maxErrorRetries) {
    return {
      attempts: 1 + errorRetries,
      backoff: { type: 'fixed', delay: this.#errorRetryDelayMs },
      // A finished job goes at once (kept, BullMQ's script would also trim the finished set on every job): the
      // delivery's record says it finished, and forwarding an entry again skips deliveries that did. Failed jobs stay
      // a while for inspection.
      removeOnComplete: true,
      removeOnFail: { age: 24 * 3600, count: 1000 },
    };
  }

  async enqueue(jobs: DeliveryJob[], records?: () => Promise<void>): Promise<void> {
    // Redis and the documents commit apart: the records first, so that no job runs without its record stored.
    if (records) await records();
    if (jobs.length === 0) return;
    await new Promise<void>((resolve, reject) => {
      if (this.#pending.push({ jobs, resolve, reject }) === 1) setImmediate(() => void this.#flush());
    });
  }

  /** Stores the deliveries of the `enqueue` calls of one turn of the event loop; every call settles with its jobs. */
  async #flush(): Promise<void> {
    const calls = this.#pending.splice(0);
    try {
      await this.#add(this.#entriesOf(calls.map((call) => call.jobs)));
      for (const call of calls) call.resolve();
    } catch (error) {
      for (const call of calls) call.reject(error);
    }
  }

  /** The jobs that store these calls' deliveries: BATCH_MAX per job, a call's deliveries in one job when they fit. */
  #entriesOf(calls: DeliveryJob[][]): Array<{ name: string; data: QueuedJob; opts: JobsOptions }> {
    const opts = this.#jobOptions();
    const seen = new Set<string>();
    const groups: DeliveryJob[][] = [];
    let group: DeliveryJob[] = [];
    for (const jobs of calls) {
      const fresh = jobs.filter((job) => !seen.has(job.deliveryId) && seen.add(job.deliveryId));
      if (group.length > 0 && group.length + fresh.length > BATCH_MAX) {
        groups.push(group);
        group = [];
      }
      for (const job of fresh) {
        group.push(job);
        if (group.length === BATCH_MAX) {
          groups.push(group);
          group = [];
        }
      }
    }
    if (group.length > 0) groups.push(group);
    // jobId = deliveryId, or for a batch a digest of its deliveryIds, makes BullMQ ignore a job it already holds.
    return groups.map((members) =>
      members.length === 1
        ? { name: members[0]!.event, data: members[0]!, opts: { ...opts, jobId: members[0]!.deliveryId } }
        : { name: 'batch', data: { batch: members }, opts: { ...opts, jobId: batchId(members) } },
    );
  }

  /**
   * One job (the usual case: one outbox entry, one retry) is added on its own: addBulk builds an ioredis pipeline,
   * whose construction copies every BullMQ script onto it, which cost about half as much again per call.
   */
  async #add(entries: Array<{ name: string; data: QueuedJob; opts: JobsOptions }>): Promise<void> {
    if (entries.length === 1) await this.#queue.add(entries[0]!.name, entries[0]!.data, entries[0]!.opts);
    else await this.#queue.addBulk(entries);
  }

  async consume(processor: DeliveryProcessor, { concurrency }: { concurrency: number }): Promise<void> {
    if (this.#worker) throw new Error('Delivery queue already has a consumer');
    // BullMQ requires maxRetriesPerRequest: null on worker connections; the shared one keeps failing fast.
    this.#workerConnection = this.#options.connection.duplicate({ maxRetriesPerRequest: null });
    const slots = new Slots(concurrency);
    const attempt = async (delivery: DeliveryJob, number: number): Promise<AttemptResult> => {
      await slots.acquire();
      if (this.#closing) {
        // Closing waits for the jobs in flight, and a batch's deliveries may still be waiting for a slot: those are
        // deferred (nothing was sent, no attempt used), so closing takes one attempt's time at most.
        slots.release();
        return { deferInMs: 0 };
      }
      let result: AttemptResult;
      try {
        result = await processor(delivery, number);
      } finally {
        slots.release();
      }
      // The slot is free; the job ends once the attempt's outcome is durable (a rejection: as if the processor threw).
      await result.recorded;
      return result;
    };
    const worker = new Worker<QueuedJob>(
      this.#options.queueName,
      async (job: Job<QueuedJob>, token?: string) => {
        if ('batch' in job.data) return this.#runBatch(job.data.batch.map(storedJob), job.attemptsStarted, attempt);
        const { deferrals = 0, attemptsBefore = 0, ...delivery } = job.data;
        const { retryInMs, deferInMs } = await attempt(
          storedJob(delivery),
          attemptsBefore + job.attemptsStarted - deferrals,
        );
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
    worker.on('failed', (job, error) =>
      this.#onError(error, job && 'deliveryId' in job.data ? job.data.deliveryId : undefined),
    );
    this.#worker = worker;
    await worker.waitUntilReady();
  }

  /**
   * Runs every delivery of a batch as attempt `number`; each one to be tried again leaves it as a job of its own,
   * stored as soon as its attempt ended (a deferral does not wait for the batch's slowest delivery) and before the
   * batch finishes. A processor that throws is retried as BullMQ retries a single job's, with what is left of the
   * error budget (this throw used one).
   */
  async #runBatch(
    batch: DeliveryJob[],
    number: number,
    attempt: (delivery: DeliveryJob, number: number) => Promise<AttemptResult>,
  ) {
    const again = async (
      delivery: DeliveryJob,
    ): Promise<{ delayMs: number; attemptsBefore: number; errorRetriesLeft?: number } | undefined> => {
      try {
        const { retryInMs, deferInMs } = await attempt(delivery, number);
        if (deferInMs !== undefined) return { delayMs: deferInMs, attemptsBefore: number - 1 };
        if (retryInMs !== undefined) return { delayMs: retryInMs, attemptsBefore: number };
        return undefined;
      } catch (error) {
        if (this.#maxErrorRetries === 0) {
          this.#onError(error, delivery.deliveryId);
          return undefined;
        }
        return {
          delayMs: this.#errorRetryDelayMs,
          attemptsBefore: number,
          errorRetriesLeft: this.#maxErrorRetries - 1,
        };
      }
    };
    const stored = await Promise.allSettled(
      batch.map(async (delivery) => {
        const next = await again(delivery);
        if (!next) return;
        await this.#add([
          {
            name: delivery.event,
            data: { ...delivery, attemptsBefore: next.attemptsBefore },
            opts: { ...this.#jobOptions(next.errorRetriesLeft), delay: next.delayMs, jobId: delivery.deliveryId },
          },
        ]);
      }),
    );
    // Every attempt has ended: a job that could not be stored makes the batch run again, as a stalled one would.
    const failed = stored.find((outcome) => outcome.status === 'rejected');
    if (failed) throw failed.reason;
  }

  async pendingCount(): Promise<number> {
    const counts = await this.#queue.getJobCounts('waiting', 'delayed', 'active', 'prioritized');
    return Object.values(counts).reduce((sum, count) => sum + count, 0);
  }

  async close(): Promise<void> {
    this.#closing = true;
    // Against a Redis that is not up, every command would wait for it: nothing can be running, so do not wait.
    const up = this.#options.connection.status === 'ready';
    await this.#worker?.close(!up);
    if (this.#options.removeOnClose && up)
      await this.#queue.obliterate({ force: true }).catch((error) => this.#onError(error));
    await this.#queue.close();
    if (this.#workerConnection?.status === 'ready') await this.#workerConnection.quit().catch(() => {});
    else this.#workerConnection?.disconnect();
  }
}

/** A batch's job id: the same deliveries, in the same order, are the same job. */
function batchId(group: DeliveryJob[]): string {
  return idOfText('batch_', group.map((job) => job.deliveryId).join('\n'));
}

/** At most `size` holders at once; the others wait in order. */
class Slots {
  #free: number;
  readonly #waiting: Array<() => void> = [];

  constructor(size: number) {
    this.#free = size;
  }

  async acquire(): Promise<void> {
    if (this.#free > 0) {
      this.#free -= 1;
      return;
    }
    await new Promise<void>((resolve) => this.#waiting.push(resolve));
  }

  /** Hands the slot to the next waiter, if any. */
  release(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#free += 1;
  }
}

/** BullMQ merges options over its defaults with Object.assign, so an explicit undefined would erase a default. */
function defined<T extends Record<string, unknown>>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as Partial<T>;
}
