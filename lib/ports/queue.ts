/**
 * The webhook delivery queue port. BullMQ on Redis when shared (`adapters/bullmq`), the SQLite file on a single node
 * (`adapters/sqlite`), an in-process queue in memory mode (`adapters/memory`). The queue only stores and schedules: whether and when to retry is
 * decided by the processor (`lib/webhooks`), so both backends follow the same retry policy.
 */
export interface DeliveryJob {
  /** Also the queue's job id and (unless `webhookId` says otherwise) the `webhook-id` header: stable across retries. */
  deliveryId: string;
  /** A replay's: the original delivery's id, sent as `webhook-id` so that consumers de-duplicate it. */
  webhookId?: string;
  /** The replay this delivery belongs to. */
  replayId?: string;
  hookId: string;
  event: string;
  /**
   * The event's JSON text, without the receiving hook's id: the body sent is this text with `hookId` added last
   * (lib/webhooks/payload.ts). The deliveries of one event share one text.
   */
  payload: string;
  /** Epoch ms when the triggering event was published. */
  createdAt: number;
}

/** What the processor tells the queue after one attempt. */
export interface AttemptResult {
  /**
   * Settles once what the attempt records (its log, the delivery's record) is durable, when the processor returns
   * before that: the queue then stores the job's end or next run alongside (in the same commit when it keeps its jobs
   * in the documents' file), and gives the attempt's slot to the next job at once. A rejection counts as a processor
   * that threw: the attempt is made again.
   */
  recorded?: Promise<void>;
  /** Schedule another attempt after this many ms; absent when the delivery is finished (either way). */
  retryInMs?: number;
  /**
   * Nothing was sent (the endpoint was busy or its circuit open): run this same attempt again after this many
   * ms. The attempt number given to the processor does not advance. Wins over `retryInMs`.
   */
  deferInMs?: number;
}

/**
 * `attempt` is 1 for the first try. A processor that throws is treated as `{ retryInMs: fallback }`; the queue always
 * waits for `recorded`.
 */
export type DeliveryProcessor = (job: DeliveryJob, attempt: number) => Promise<AttemptResult>;

export interface DeliveryQueue {
  readonly kind: 'memory' | 'sqlite' | 'bullmq';
  /**
   * Resolves only once every job is stored (durably, for BullMQ and SQLite). Re-adding a job the queue holds is a no-op, when
   * it is re-added as it was added: alone, or with the same others (BullMQ stores the jobs of one call, and of the
   * calls made in one turn of the event loop, together). `records` writes what the jobs need stored beside them (the
   * deliveries' records): a queue that keeps its jobs in the documents' file writes both in one commit, any other
   * stores the jobs once the records are stored. When either fails it rejects and keeps none of the jobs (the records
   * written are the caller's to withdraw).
   */
  enqueue(jobs: DeliveryJob[], records?: () => Promise<void>): Promise<void>;
  /** Starts consuming with the given concurrency. One consumer per queue instance. */
  consume(processor: DeliveryProcessor, options: { concurrency: number }): Promise<void>;
  /** Jobs waiting or delayed or running (for metrics and tests); a BullMQ job may hold several deliveries. */
  pendingCount(): Promise<number>;
  /** Stops consuming (waits for attempts in flight) and releases connections. */
  close(): Promise<void>;
}
