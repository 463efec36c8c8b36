import type { Logger } from 'pino';
import type { DeliveryJob, DeliveryProcessor } from '../ports/queue.ts';
import type { DeliveriesRepository } from './deliveries.ts';
import type { DeliveryStatus } from './delivery.ts';
import type { DeliveryLogs } from './delivery-logs.ts';
import type { DestinationPolicy } from './destinations.ts';
import type { EndpointGuard, EndpointHealth } from './endpoint-guard.ts';
import type { FailureStreaks } from './failure-streak.ts';
import type { HookCache } from './hook-cache.ts';
import { signingKeysAt, type HookRecord } from './hooks.ts';
import { classify, nextDelayMs, type Outcome } from './retry-policy.ts';
import { sendWebhook, type SendInput, type SendResult } from './sender.ts';
import { ORDER_WAIT_MS, orderedPlace, type EntityOrder } from './entity-order.ts';
import { deliveryBody } from './payload.ts';
import { signatureHeaders } from './signing.ts';

export interface DeliveryPolicy {
  /** Keep-alive connection pools to consumers' endpoints. */
  agents?: SendInput['agents'];
  destinations: DestinationPolicy;
  retryDelaysMs: readonly number[];
  retryAfterCapMs: number;
  timeoutMs: number;
  userAgent: string;
}

export interface ProcessorDeps {
  cache: HookCache;
  deliveries: DeliveriesRepository;
  logs: DeliveryLogs;
  policy: DeliveryPolicy;
  guard: EndpointGuard;
  streaks: FailureStreaks;
  /** Turns off a hook (410 Gone, every attempt failing for too long); true when it was still enabled. */
  disableHook(hookId: string, reason: string): Promise<boolean>;
  logger: Logger;
  /** Per-entity order of the hooks that ask for it. */
  order: EntityOrder;
  /** Told of every attempt that was made (not of deferrals), for metrics. */
  onAttempt?: (attempt: { outcome: Outcome; latencyMs: number }) => void;
}

/** Signs and POSTs one delivery (its event's text, see DeliveryJob) to its hook's current URL, with its current keys. */
export async function sendDelivery(
  hook: HookRecord,
  delivery: { deliveryId: string; webhookId?: string; payload: string },
  policy: DeliveryPolicy,
): Promise<SendResult> {
  const body = deliveryBody(delivery.payload, hook.id);
  const now = Date.now();
  const signatures = signatureHeaders({
    deliveryId: delivery.webhookId ?? delivery.deliveryId,
    timestamp: now / 1000,
    body,
    signingKeys: signingKeysAt(hook, now),
  });
  return sendWebhook({
    url: hook.config.url,
    body,
    headers: { ...signatures },
    customHeaders: hook.config.headers,
    timeoutMs: policy.timeoutMs,
    userAgent: policy.userAgent,
    agents: policy.agents,
    destinations: policy.destinations,
  });
}

/** A refused destination was never asked; any answer other than one worth retrying means the endpoint is up. */
function healthOf(result: SendResult, outcome: Outcome): EndpointHealth {
  if (result.refused !== undefined) return 'untried';
  return outcome === 'retry' ? 'failing' : 'answering';
}

function statusAfter(outcome: Outcome, retryInMs: number | undefined): DeliveryStatus {
  if (outcome === 'succeeded') return 'succeeded';
  if (outcome === 'retry') return retryInMs === undefined ? 'exhausted' : 'pending';
  return 'failed';
}

/** Whether the delivery's record says it finished (a delivery without a record is sent). */
async function finishedBefore(deliveries: DeliveriesRepository, deliveryId: string): Promise<boolean> {
  const status = (await deliveries.statusesOf([deliveryId])).get(deliveryId);
  return status !== undefined && status !== 'pending';
}

/**
 * One attempt of one delivery, as the queue runs it: send, log, record the delivery's state, and tell the
 * queue whether to try again. The hook is read at every attempt, so a changed URL, rotated key or disabled
 * hook applies to retries already scheduled. An endpoint that is busy or whose circuit is open gets no
 * request: the delivery is deferred without using up an attempt. A later attempt of a delivery whose record
 * says it finished sends nothing.
 */
export function createDeliveryProcessor(deps: ProcessorDeps): DeliveryProcessor {
  const { policy } = deps;

  return async (job: DeliveryJob, attempt: number) => {
    const hook = (await deps.cache.current()).byId(job.hookId);
    // A deleted hook took its delivery records with it: nothing to send, nothing to record.
    if (!hook) return {};
    // Replays neither wait nor hold others back: they send again what was already sent in order.
    const place =
      hook.ordering === 'entity' && job.replayId === undefined ? orderedPlace(JSON.parse(job.payload)) : undefined;
    if (!hook.enabled) {
      await deps.deliveries.cancel(job.deliveryId, 'hook disabled');
      if (place) await deps.order.release(hook.id, place);
      return {};
    }
    // A job run again after a crash (or a batch whose hand-over failed) may hold deliveries that had finished.
    if (attempt > 1 && (await finishedBefore(deps.deliveries, job.deliveryId))) return {};
    if (place && (await deps.order.mustWait(hook.id, place))) return { deferInMs: ORDER_WAIT_MS };
    const [admission, failingSince] = await Promise.all([
      deps.guard.admit(hook.config.url),
      deps.streaks.since(hook.id),
    ]);
    if ('deferInMs' in admission) return { deferInMs: admission.deferInMs };
    let result: SendResult;
    try {
      result = await sendDelivery(hook, job, policy);
    } catch (error) {
      await admission.pass.done('untried', 0);
      throw error;
    }
    const outcome = classify(result);
    const at = Date.now();
    const [, streakStart] = await Promise.all([
      admission.pass.done(healthOf(result, outcome), result.latencyMs),
      deps.streaks.record(hook.id, !result.ok, failingSince, at),
    ]);
    const disableReason =
      outcome === 'gone'
        ? 'the endpoint answered 410 Gone'
        : streakStart === null
          ? undefined
          : `every delivery attempt failed from ${new Date(streakStart).toISOString()} to ${new Date(at).toISOString()} (WEBHOOK_AUTO_DISABLE_AFTER_MS)`;
    const retryInMs =
      outcome === 'retry' && disableReason === undefined
        ? nextDelayMs({
            attempt,
            delays: policy.retryDelaysMs,
            retryAfterMs: result.retryAfterMs,
            retryAfterCapMs: policy.retryAfterCapMs,
          })
        : undefined;
    const nextRetryAt = retryInMs === undefined ? null : at + retryInMs;
    const responseStatus = result.status ?? null;
    const responseBody = result.responseBody ?? null;
    const error = result.error ?? null;
    const status = disableReason === undefined ? statusAfter(outcome, retryInMs) : 'failed';
    // Written now, not waited for: the queue stores the job's end or next run with them and frees the slot meanwhile.
    const written = Promise.all([
      deps.logs.record({
        // The hook's own strings rather than the job's copies: a log is kept for days, and these are the same text.
        hookId: hook.id,
        deliveryId: job.deliveryId,
        event: hook.events.find((event) => event === job.event) ?? job.event,
        attempt,
        succeeded: result.ok,
        responseStatus,
        responseBody,
        error,
        latencyMs: result.latencyMs,
        nextRetryAt,
        createdAt: at,
      }),
      deps.deliveries.recordAttempt(job, {
        status,
        at,
        nextRetryAt,
        responseStatus,
        responseBody,
        latencyMs: result.latencyMs,
        error,
      }),
    ]);
    const recorded = (async () => {
      await written;
      if (place && status !== 'pending') await deps.order.release(hook.id, place);
      // Never the URL (its query may hold a consumer's secret), the headers or the payload.
      deps.logger.info(
        {
          hookId: hook.id,
          deliveryId: job.deliveryId,
          event: job.event,
          attempt,
          outcome,
          responseStatus,
          latencyMs: result.latencyMs,
          nextRetryAt,
        },
        'webhook delivery attempt',
      );
      deps.onAttempt?.({ outcome, latencyMs: result.latencyMs });
      if (disableReason !== undefined && (await deps.disableHook(hook.id, disableReason))) {
        deps.logger.warn(
          { hookId: hook.id, deliveryId: job.deliveryId, reason: disableReason },
          'webhook hook disabled',
        );
      }
    })();
    return retryInMs === undefined ? { recorded } : { retryInMs, recorded };
  };
}
