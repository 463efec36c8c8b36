import type { Logger } from 'pino';
import { findPage, publicShape, type Page, type PageResult, type Stored } from '../data/entity.ts';
import { errors } from '../errors.ts';
import type { EventName } from '../events/catalogue.ts';
import type { EventLog } from '../events/event-log.ts';
import { newId } from '../ids.ts';
import type { DocumentStore } from '../ports/documents.ts';
import type { DeliveryJob } from '../ports/queue.ts';
import { hookErrors } from './errors.ts';
import { enqueueDeliveries, originalDeliveryId, type EnqueueDeps } from './fan-out.ts';
import type { HookManagement } from './management.ts';
import { newDeliveryId } from './payload.ts';

/** `events`: the retained events of the window again; `failed`: every delivery of the window that failed for good. */
export const REPLAY_KINDS = ['events', 'failed'] as const;
export type ReplayKind = (typeof REPLAY_KINDS)[number];
export const REPLAY_STATUSES = ['running', 'completed', 'failed'] as const;

/** A replay: a background job sending a window of a hook's events again, under their original `webhook-id`. */
export interface Replay {
  id: string;
  hookId: string;
  kind: ReplayKind;
  /** Epoch ms, inclusive. */
  since: number;
  until: number;
  /** The event types replayed (`events` replays): those asked for, or all the hook subscribes to. */
  events: EventName[];
  status: (typeof REPLAY_STATUSES)[number];
  /** Deliveries queued so far. */
  enqueued: number;
  /** Why it stopped early (`failed`), or that it reached `MAX_REPLAY_DELIVERIES` (`completed`); null otherwise. */
  note: string | null;
  createdAt: number;
  updatedAt: number;
  completedAt: number | null;
}

type ReplayRecord = Stored<Replay> & {
  /** Where it stands: the last sequence queued (`events`), or the last delivery's (createdAt, id) (`failed`). */
  cursor: { sequence: number } | { createdAt: number; id: string } | null;
  expiresAt: Date;
};

/** Deliveries queued per step; each step is one read and one enqueue. */
const BATCH = 100;
/** The most one replay queues; a larger window is several replays. */
export const MAX_REPLAY_DELIVERIES = 10_000;

export interface ReplayRequest {
  kind: ReplayKind;
  since: number;
  until?: number;
  events?: EventName[];
}

/**
 * Replays run in the background, one step (at most BATCH deliveries) at a time, each step's progress stored before
 * the next, and end after MAX_REPLAY_DELIVERIES. An `events` replay reads the event log (what EVENT_RETENTION_DAYS
 * kept) and sends each event's payload as the hook first received it, with its original delivery id as `webhook-id`;
 * a `failed` replay does the same for the hook's deliveries that failed for good. Each is a new delivery (its own id,
 * retries and record), marked with the replay's id. A replay whose process stopped resumes at the next start.
 */
export function createReplays(
  deps: EnqueueDeps & {
    store: DocumentStore;
    log: EventLog;
    management: HookManagement;
    logger: Logger;
    retentionMs: number;
  },
) {
  const replays = deps.store.collection<ReplayRecord>('webhook_replays');
  const running = new Map<string, Promise<void>>();
  let stopped = false;
  const present = (doc: ReplayRecord) => publicShape<Replay>(doc, ['cursor', 'expiresAt']);

  async function step(record: ReplayRecord): Promise<ReplayRecord | null> {
    const hook = await deps.management.mustFind(record.hookId).catch(() => null);
    if (!hook) return finish(record, 'failed', 'the hook was deleted');
    if (!hook.enabled) return finish(record, 'failed', 'the hook is disabled');
    const room = Math.min(BATCH, MAX_REPLAY_DELIVERIES - record.enqueued);
    if (room <= 0)
      return finish(
        record,
        'completed',
        `stopped at ${MAX_REPLAY_DELIVERIES} deliveries: replay the rest of the window separately`,
      );
    const now = Date.now();
    let jobs: DeliveryJob[];
    let cursor: ReplayRecord['cursor'];
    if (record.kind === 'events') {
      const after = record.cursor && 'sequence' in record.cursor ? record.cursor.sequence : 0;
      const found = await deps.log.window({
        since: new Date(record.since),
        until: new Date(record.until),
        after,
        types: record.events,
        limit: room,
      });
      jobs = found.map(({ sequence, event, body }) => ({
        deliveryId: newDeliveryId(),
        webhookId: originalDeliveryId(sequence, hook.id),
        replayId: record.id,
        hookId: hook.id,
        event,
        payload: body,
        createdAt: now,
      }));
      cursor = found.length > 0 ? { sequence: found.at(-1)!.sequence } : record.cursor;
    } else {
      const after = record.cursor && 'id' in record.cursor ? record.cursor : null;
      const found = await deps.deliveries.failedBetween(
        hook.id,
        { since: record.since, until: record.until },
        after,
        room,
      );
      jobs = found.map((delivery) => ({
        deliveryId: newDeliveryId(),
        webhookId: delivery.webhookId,
        replayId: record.id,
        hookId: hook.id,
        event: delivery.event,
        payload: delivery.payload,
        createdAt: now,
      }));
      cursor = found.length > 0 ? { createdAt: found.at(-1)!.createdAt, id: found.at(-1)!.id } : record.cursor;
    }
    if (jobs.length === 0) return finish(record, 'completed', null);
    await enqueueDeliveries(deps, jobs);
    const updated = await replays.findOneAndUpdate(
      { _id: record.id },
      { $set: { cursor, updatedAt: Date.now() }, $inc: { enqueued: jobs.length } },
      { returnDocument: 'after' },
    );
    return updated;
  }

  async function finish(record: ReplayRecord, status: Replay['status'], note: string | null): Promise<null> {
    const at = Date.now();
    await replays.updateOne({ _id: record.id }, { $set: { status, note, updatedAt: at, completedAt: at } });
    return null;
  }

  /** Runs one replay to its end (or until the process stops), outside any request's transaction. */
  function run(record: ReplayRecord): void {
    if (running.has(record.id)) return;
    const job = deps.store
      .outsideTransaction(async () => {
        let current: ReplayRecord | null = record;
        while (current && !stopped) {
          current = await step(current);
          // Lets requests run between steps.
          await new Promise((resolve) => setImmediate(resolve));
        }
      })
      .catch(async (error: unknown) => {
        deps.logger.warn({ err: error, replayId: record.id }, 'webhook replay stopped');
        await finish(record, 'failed', 'the replay could not continue (see the service log)').catch(() => undefined);
      })
      .finally(() => running.delete(record.id));
    running.set(record.id, job);
  }

  return {
    async prepare(): Promise<void> {
      await replays.createIndex({ keys: { hookId: 1, createdAt: -1 } });
      await replays.createIndex({ keys: { status: 1 } });
      await replays.createIndex({ keys: { expiresAt: 1 }, expireAfterSeconds: 0 });
    },

    async start(hookId: string, request: ReplayRequest): Promise<Replay> {
      const hook = await deps.management.mustFind(hookId);
      if (!hook.enabled) throw hookErrors.disabled(hookId);
      const now = Date.now();
      const until = Math.min(request.until ?? now, now);
      if (request.since > until) throw errors.invalidInput('since must not be after until (or now)');
      const events = request.events ? request.events.filter((event) => hook.events.includes(event)) : hook.events;
      if (request.events && events.length === 0)
        throw errors.invalidInput('the hook subscribes to none of these events');
      const record: ReplayRecord = {
        _id: `rpl_${newId()}`,
        id: '',
        hookId,
        kind: request.kind,
        since: request.since,
        until,
        events,
        status: 'running',
        enqueued: 0,
        note: null,
        createdAt: now,
        updatedAt: now,
        completedAt: null,
        cursor: null,
        expiresAt: new Date(now + deps.retentionMs),
      };
      record.id = record._id;
      await replays.insertOne(record);
      // After the request's transaction committed: the job reads what it stored.
      const transaction = deps.store.currentTransaction();
      if (transaction) transaction.afterCommit(() => run(record));
      else run(record);
      return present(record);
    },

    async get(hookId: string, replayId: string): Promise<Replay> {
      const doc = await replays.findOne({ _id: replayId, hookId });
      if (!doc) throw errors.notFound('replay', replayId);
      return present(doc);
    },

    async list(hookId: string, page: Page): Promise<PageResult<Replay>> {
      const { items, total } = await findPage(replays, { hookId }, page, { createdAt: -1, _id: -1 });
      return { items: items.map(present), total };
    },

    /** Resumes the replays a stopped process left running. */
    async resume(): Promise<void> {
      for (const doc of await replays.find({ status: 'running' }, { limit: 100 })) run(doc);
    },

    /** Stops after the steps in hand (their progress is stored; the next start resumes them). */
    async stop(): Promise<void> {
      stopped = true;
      await Promise.all(running.values());
    },
  };
}
