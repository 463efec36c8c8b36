import type { DocumentStore } from '../ports/documents.ts';
import { timeOrderedId } from '../ids.ts';
import { findPage, type Page, type PageResult, type Stored } from '../data/entity.ts';

/** One HTTP attempt of one delivery. */
export interface AttemptLog {
  hookId: string;
  deliveryId: string;
  event: string;
  attempt: number;
  succeeded: boolean;
  /** Absent when no response arrived (timeout, network error). */
  responseStatus: number | null;
  /** Truncated by the sender. */
  responseBody: string | null;
  error: string | null;
  latencyMs: number;
  nextRetryAt: number | null;
  createdAt: number;
}

/** How the API shows an attempt: Logto's log entry shape, keyed `TriggerHook.<event>`. */
export interface LogEntry {
  id: string;
  key: string;
  payload: {
    key: string;
    result: 'Success' | 'Error';
    hookId: string;
    deliveryId: string;
    event: string;
    attempt: number;
    /** `statusCode` is Logto's name for `status`. */
    response?: { status: number; statusCode: number; body: AnswerBody };
    /** Logto's record of what was sent: the delivery's payload (filled in by the recent-logs route). */
    hookRequest?: { body: Record<string, unknown> };
    error?: string;
    latencyMs: number;
    nextRetryAt: number | null;
  };
  createdAt: number;
}

type LogRecord = Stored<AttemptLog> & { id: string; expiresAt: Date };

export const LOG_KEY_PREFIX = 'TriggerHook.';

/** The receiver's answer: a JSON object or array, or text. */
type AnswerBody = string | Record<string, unknown> | unknown[];

/**
 * Logto's `response.body` is the receiver's answer parsed as JSON: an answer that is a whole JSON object or array is
 * given parsed, anything else (text, or an answer cut at the size kept, which then no longer parses) as its text.
 */
function answerBody(text: string | null): AnswerBody {
  if (!text) return '';
  const first = text.trimStart()[0];
  if (first !== '{' && first !== '[') return text;
  try {
    return JSON.parse(text) as AnswerBody;
  } catch {
    return text;
  }
}

export function presentLog(log: AttemptLog & { id: string }): LogEntry {
  const key = LOG_KEY_PREFIX + log.event;
  return {
    id: log.id,
    key,
    payload: {
      key,
      result: log.succeeded ? 'Success' : 'Error',
      hookId: log.hookId,
      deliveryId: log.deliveryId,
      event: log.event,
      attempt: log.attempt,
      ...(log.responseStatus === null
        ? {}
        : {
            response: {
              status: log.responseStatus,
              statusCode: log.responseStatus,
              body: answerBody(log.responseBody),
            },
          }),
      ...(log.error === null ? {} : { error: log.error }),
      latencyMs: log.latencyMs,
      nextRetryAt: log.nextRetryAt,
    },
    createdAt: log.createdAt,
  };
}

/** MongoDB's TTL monitor removes expired logs a minute or more late: readers leave them out themselves. */
const unexpired = () => ({ expiresAt: { $gt: new Date() } });

/**
 * When a log made at `at` expires: the retention period, up to the next whole second, so that the logs of one second
 * expire together (the embedded store then keeps one date for all of them).
 */
function retainedUntil(at: number, retentionMs: number): Date {
  return new Date(Math.ceil((at + retentionMs) / 1000) * 1000);
}

/** Attempt logs, expired by a TTL index after the retention period (to the second). */
export function createDeliveryLogs(store: DocumentStore, options: { retentionMs: number }) {
  const logs = store.collection<LogRecord>('webhook_logs');

  return {
    async prepare() {
      await logs.createIndex({ keys: { hookId: 1, createdAt: -1 } });
      await logs.createIndex({ keys: { deliveryId: 1 } });
      await logs.createIndex({ keys: { expiresAt: 1 }, expireAfterSeconds: 0 });
    },
    async record(log: AttemptLog): Promise<void> {
      // Time-ordered: logs are appended by the thousand, and random ids would put each in its own page of the id index.
      const id = timeOrderedId();
      // `_id` first, where the store keeps it: the embedded store then stores its copy without reordering it. Every
      // field is written out: a literal keeps them all in the object itself, where a spread would put most of them in
      // a separate property array (32 more bytes a log on the embedded store, whose copy keeps the layout).
      const record: LogRecord = {
        _id: id,
        id,
        hookId: log.hookId,
        deliveryId: log.deliveryId,
        event: log.event,
        attempt: log.attempt,
        succeeded: log.succeeded,
        responseStatus: log.responseStatus,
        responseBody: log.responseBody,
        error: log.error,
        latencyMs: log.latencyMs,
        nextRetryAt: log.nextRetryAt,
        createdAt: log.createdAt,
        expiresAt: retainedUntil(log.createdAt, options.retentionMs),
      };
      await logs.insertOne(record);
    },
    async recent(hookId: string, since: number, page: Page, event?: string): Promise<PageResult<LogEntry>> {
      const filter: Record<string, unknown> = { hookId, createdAt: { $gte: since }, ...unexpired() };
      if (event) filter.event = event;
      const { items, total } = await findPage(logs, filter, page, { createdAt: -1, _id: -1 });
      return { items: items.map(presentLog), total };
    },
    async ofDelivery(deliveryId: string): Promise<LogEntry[]> {
      return (await logs.find({ deliveryId, ...unexpired() }, { sort: { createdAt: 1, attempt: 1 } })).map(presentLog);
    },
    /** Logto's `executionStats`: attempts and successful attempts since `since`. */
    async stats(hookId: string, since: number): Promise<{ successCount: number; requestCount: number }> {
      const window = { hookId, createdAt: { $gte: since }, ...unexpired() };
      const [successCount, requestCount] = await Promise.all([
        logs.countDocuments({ ...window, succeeded: true }),
        logs.countDocuments(window),
      ]);
      return { successCount, requestCount };
    },
    async removeOfHook(hookId: string): Promise<void> {
      await logs.deleteMany({ hookId });
    },
  };
}

export type DeliveryLogs = ReturnType<typeof createDeliveryLogs>;
