import type { DocumentStore } from '../ports/documents.ts';
import type { DeliveryJob } from '../ports/queue.ts';
import { findPage, publicShape, type Page, type PageResult, type Stored } from '../data/entity.ts';
import { deliveryPayload } from './payload.ts';
import type { Delivery, DeliveryStatus } from './delivery.ts';

export interface DeliveryWithPayload extends Delivery {
  payload: Record<string, unknown>;
}

export interface AttemptOutcome {
  status: DeliveryStatus;
  at: number;
  nextRetryAt: number | null;
  responseStatus: number | null;
  responseBody: string | null;
  latencyMs: number;
  error: string | null;
}

export const RESPONSE_EXCERPT_LENGTH = 200;

/**
 * The payload is kept as its JSON text without the receiving hook's id, which the record holds: it is only ever read
 * back whole (a resend, one delivery's view), as text it takes about half the memory of the same object on the
 * embedded store, and the deliveries of one event to several hooks share one text there.
 */
type DeliveryRecord = Stored<Omit<Delivery, 'webhookId' | 'replayId' | 'sequence' | 'version'>> & {
  payload: string;
  expiresAt: Date;
  /** Replays only: records of ordinary deliveries carry neither. */
  webhookId?: string;
  replayId?: string;
  /** Absent for events recorded before they were numbered. */
  sequence?: number;
  version?: number;
};

/** A number the payload carries at the top level, if any. */
const numberIn = (payload: Record<string, unknown>, field: string) =>
  typeof payload[field] === 'number' ? payload[field] : undefined;

/** The payload as sent, as an object. */
const sentPayload = (doc: DeliveryRecord) => deliveryPayload(doc.payload, doc.hookId);

const HIDDEN = ['payload', 'expiresAt'] as const;

/** MongoDB's TTL monitor removes expired records a minute or more late: readers leave them out themselves. */
const unexpired = () => ({ expiresAt: { $gt: new Date() } });

/** Per-delivery state, kept (with the payload, for resends) as long as the attempt logs. */
export function createDeliveriesRepository(store: DocumentStore, options: { retentionMs: number }) {
  const deliveries = store.collection<DeliveryRecord>('webhook_deliveries');
  const present = (doc: DeliveryRecord): Delivery => ({
    ...publicShape<Delivery>(doc, HIDDEN),
    webhookId: doc.webhookId ?? doc.id,
    replayId: doc.replayId ?? null,
    sequence: doc.sequence ?? null,
    version: doc.version ?? null,
  });

  /** `body`: the job's payload, parsed (the deliveries of one event share it). */
  function initial(
    job: DeliveryJob,
    resentFrom: string | null,
    body = JSON.parse(job.payload) as Record<string, unknown>,
  ): DeliveryRecord {
    const sequence = numberIn(body, 'sequence');
    const version = numberIn(body, 'version');
    return {
      _id: job.deliveryId,
      id: job.deliveryId,
      hookId: job.hookId,
      event: job.event,
      payload: job.payload,
      status: 'pending',
      attempts: 0,
      lastAttemptAt: null,
      nextRetryAt: null,
      lastResponseStatus: null,
      lastError: null,
      lastLatencyMs: null,
      lastResponseExcerpt: null,
      resentFrom: resentFrom ?? job.webhookId ?? null,
      ...(job.webhookId === undefined ? {} : { webhookId: job.webhookId }),
      ...(job.replayId === undefined ? {} : { replayId: job.replayId }),
      ...(sequence === undefined ? {} : { sequence }),
      ...(version === undefined ? {} : { version }),
      createdAt: job.createdAt,
      expiresAt: new Date(job.createdAt + options.retentionMs),
    };
  }

  return {
    async prepare() {
      await deliveries.createIndex({ keys: { hookId: 1, createdAt: -1 } });
      await deliveries.createIndex({ keys: { expiresAt: 1 }, expireAfterSeconds: 0 });
    },
    async insertPending(jobs: DeliveryJob[], resentFrom: string | null = null): Promise<void> {
      // One event's deliveries to several hooks share one text, read once.
      const bodies = new Map<string, Record<string, unknown>>();
      await deliveries.insertMany(
        jobs.map((job) => {
          let body = bodies.get(job.payload);
          if (!body) {
            body = JSON.parse(job.payload) as Record<string, unknown>;
            bodies.set(job.payload, body);
          }
          return initial(job, resentFrom, body);
        }),
      );
    },
    /** The status of each of these deliveries that has a record. */
    async statusesOf(ids: string[]): Promise<Map<string, DeliveryStatus>> {
      const found = await deliveries.find({ _id: { $in: ids } }, { projection: { _id: 1, status: 1 } });
      return new Map(found.map((doc) => [doc._id, doc.status]));
    },
    async remove(ids: string[]): Promise<void> {
      await deliveries.deleteMany({ _id: { $in: ids } });
    },
    /** Upserts, so a job whose record is gone (expired, or never written) still leaves a trace. */
    async recordAttempt(job: DeliveryJob, outcome: AttemptOutcome): Promise<void> {
      const update = {
        $set: {
          status: outcome.status,
          lastAttemptAt: outcome.at,
          nextRetryAt: outcome.nextRetryAt,
          lastResponseStatus: outcome.responseStatus,
          lastError: outcome.error,
          lastLatencyMs: outcome.latencyMs,
          lastResponseExcerpt:
            outcome.responseBody === null ? null : outcome.responseBody.slice(0, RESPONSE_EXCERPT_LENGTH),
        },
        $inc: { attempts: 1 },
      };
      // The record is nearly always there: the fields of a new one are built only when it is not.
      if ((await deliveries.updateOne({ _id: job.deliveryId }, update)).matchedCount === 1) return;
      const {
        _id,
        status: _status,
        attempts: _attempts,
        lastAttemptAt: _at,
        nextRetryAt: _next,
        lastResponseStatus: _rs,
        lastError: _error,
        lastLatencyMs: _latency,
        lastResponseExcerpt: _excerpt,
        ...fields
      } = initial(job, null);
      await deliveries.updateOne({ _id }, { ...update, $setOnInsert: fields }, { upsert: true });
    },
    /** Ends a delivery that was never sent (its hook was disabled meanwhile). */
    async cancel(deliveryId: string, reason: string): Promise<void> {
      await deliveries.updateOne(
        { _id: deliveryId },
        { $set: { status: 'failed', nextRetryAt: null, lastError: reason } },
      );
    },
    async list(hookId: string, page: Page, status?: DeliveryStatus): Promise<PageResult<Delivery>> {
      const filter: Record<string, unknown> = { hookId, ...unexpired() };
      if (status) filter.status = status;
      const { items, total } = await findPage(deliveries, filter, page, { createdAt: -1, _id: -1 });
      return { items: items.map(present), total };
    },
    async find(hookId: string, id: string): Promise<DeliveryWithPayload | null> {
      const doc = await deliveries.findOne({ _id: id, hookId, ...unexpired() });
      return doc ? { ...present(doc), payload: sentPayload(doc) } : null;
    },
    /**
     * The hook's deliveries that failed for good (`failed`, `exhausted`) created in [since, until], oldest first, after
     * the cursor (`createdAt`, then id), with their payloads; replays' own deliveries left out.
     */
    async failedBetween(
      hookId: string,
      window: { since: number; until: number },
      after: { createdAt: number; id: string } | null,
      limit: number,
    ) {
      const filter: Record<string, unknown> = {
        hookId,
        status: { $in: ['failed', 'exhausted'] },
        createdAt: { $gte: window.since, $lte: window.until },
        replayId: { $exists: false },
        ...unexpired(),
      };
      if (after)
        filter.$or = [{ createdAt: { $gt: after.createdAt } }, { createdAt: after.createdAt, _id: { $gt: after.id } }];
      const docs = await deliveries.find(filter, { sort: { createdAt: 1, _id: 1 }, limit });
      // The payload as a job carries it.
      return docs.map((doc) => ({ ...present(doc), payload: doc.payload }));
    },
    async removeOfHook(hookId: string): Promise<void> {
      await deliveries.deleteMany({ hookId });
    },
  };
}

export type DeliveriesRepository = ReturnType<typeof createDeliveriesRepository>;
