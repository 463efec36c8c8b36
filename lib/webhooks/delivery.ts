/** A delivery's shape as the management API answers it, apart from its storage (the console reads it). */

/**
 * `pending`: queued or waiting for a retry. `succeeded`: a 2xx arrived. `failed`: the endpoint refused it
 * for good (a 4xx other than 408/429, or 410), or the hook was disabled before it went out. `exhausted`:
 * every retry of the schedule failed.
 */
export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed', 'exhausted'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** One (event, hook) pair and where its delivery stands. */
export interface Delivery {
  id: string;
  hookId: string;
  event: string;
  status: DeliveryStatus;
  /** Attempts recorded so far. */
  attempts: number;
  lastAttemptAt: number | null;
  nextRetryAt: number | null;
  lastResponseStatus: number | null;
  lastError: string | null;
  /** How long the last attempt took, from sending to its answer or failure. */
  lastLatencyMs: number | null;
  /** The start of the last answer's body (`RESPONSE_EXCERPT_LENGTH` characters), for lists; the logs keep more. */
  lastResponseExcerpt: string | null;
  /** The delivery this one re-sends, if any. */
  resentFrom: string | null;
  /** The `webhook-id` its attempts carry: its id, or for a replay the original delivery's. */
  webhookId: string;
  /** The replay that made it, if any. */
  replayId: string | null;
  /** Its event's `sequence`, and a data event's `version` (null for events recorded before they were numbered). */
  sequence: number | null;
  version: number | null;
  createdAt: number;
}
