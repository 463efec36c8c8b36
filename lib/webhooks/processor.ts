import type { Logger } from 'pino';
import type { DeliveryJob, DeliveryProcessor } from '../ports/queue.ts';
import type { DeliveriesRepository, DeliveryStatus } from './deliveries.ts';
import type { DeliveryLogs } from './delivery-logs.ts';
import type { HookCache } from './hook-cache.ts';
import { signingKeysAt, type HookRecord } from './hooks.ts';
import { classify, nextDelayMs, type Outcome } from './retry-policy.ts';
import { sendWebhook, type SendInput, type SendResult } from './sender.ts';
import { signatureHeaders } from './signing.ts';

export interface DeliveryPolicy {
  /** Keep-alive connection pools to consumers' endpoints. */
  agents?: SendInput['agents'];
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
  /** Turns off a hook whose endpoint answered 410 Gone. */
  disableHook(hookId: string): Promise<void>;
  logger: Logger;
}

/** Signs and POSTs one delivery to its hook's current URL, with the hook's current keys. */
export async function sendDelivery(
  hook: HookRecord, delivery: { deliveryId: string; payload: Record<string, unknown> }, policy: DeliveryPolicy,
): Promise<SendResult> {
  const body = JSON.stringify(delivery.payload);
  const now = Date.now();
  const signatures = signatureHeaders({
    deliveryId: delivery.deliveryId, timestamp: now / 1000, body, signingKeys: signingKeysAt(hook, now),
  });
  return sendWebhook({
    url: hook.config.url,
    body,
    headers: { ...signatures },
    customHeaders: hook.config.headers,
    timeoutMs: policy.timeoutMs,
    userAgent: policy.userAgent,
    agents: policy.agents,
  });
}

function statusAfter(outcome: Outcome, retryInMs: number | undefined): DeliveryStatus {
  if (outcome === 'succeeded') return 'succeeded';
  if (outcome === 'retry') return retryInMs === undefined ? 'exhausted' : 'pending';
  return 'failed';
}

/**
 * One attempt of one delivery, as the queue runs it: send, log, record the delivery's state, and tell the
 * queue whether to try again. The hook is read at every attempt, so a changed URL, rotated key or disabled
 * hook applies to retries already scheduled.
 */
export function createDeliveryProcessor(deps: ProcessorDeps): DeliveryProcessor {
  const { policy } = deps;

  return async (job: DeliveryJob, attempt: number) => {
    const hook = (await deps.cache.current()).byId(job.hookId);
    // A deleted hook took its delivery records with it: nothing to send, nothing to record.
    if (!hook) return {};
    if (!hook.enabled) {
      await deps.deliveries.cancel(job.deliveryId, 'hook disabled');
      return {};
    }
    const result = await sendDelivery(hook, job, policy);
    const outcome = classify(result);
    const retryInMs = outcome === 'retry' ? nextDelayMs({
      attempt, delays: policy.retryDelaysMs, retryAfterMs: result.retryAfterMs, retryAfterCapMs: policy.retryAfterCapMs,
    }) : undefined;
    const at = Date.now();
    const nextRetryAt = retryInMs === undefined ? null : at + retryInMs;
    const responseStatus = result.status ?? null;
    const error = result.error ?? null;
    await Promise.all([
      deps.logs.record({
        hookId: job.hookId, deliveryId: job.deliveryId, event: job.event, attempt, succeeded: result.ok,
        responseStatus, responseBody: result.responseBody ?? null, error, latencyMs: result.latencyMs, nextRetryAt,
        createdAt: at,
      }),
      deps.deliveries.recordAttempt(job, { status: statusAfter(outcome, retryInMs), at, nextRetryAt, responseStatus, error }),
    ]);
    if (outcome === 'gone') {
      deps.logger.warn({ hookId: hook.id, deliveryId: job.deliveryId }, 'webhook endpoint answered 410 Gone: hook disabled');
      await deps.disableHook(hook.id);
    }
    return retryInMs === undefined ? {} : { retryInMs };
  };
}
