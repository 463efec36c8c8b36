import { errors } from '../errors.ts';
import type { Delivery } from './delivery.ts';
import { hookErrors } from './errors.ts';
import { enqueueDeliveries, type EnqueueDeps } from './fan-out.ts';
import type { HookManagement } from './management.ts';
import { newDeliveryId, payloadText } from './payload.ts';

/**
 * Sends a past delivery's exact payload again, as a new delivery with a new id. A new id because the
 * queue remembers finished job ids for a while (and would ignore the old one), and because a consumer
 * that de-duplicates on `webhook-id` should treat an operator's explicit resend as a new message.
 */
export async function resendDelivery(
  deps: EnqueueDeps & { management: HookManagement },
  hookId: string,
  deliveryId: string,
): Promise<Delivery> {
  const hook = await deps.management.mustFind(hookId);
  const original = await deps.deliveries.find(hookId, deliveryId);
  if (!original) throw errors.notFound('delivery', deliveryId);
  if (!hook.enabled) throw hookErrors.disabled(hookId);
  const job = {
    deliveryId: newDeliveryId(),
    hookId,
    event: original.event,
    payload: payloadText(original.payload),
    createdAt: Date.now(),
  };
  await enqueueDeliveries(deps, [job], original.id);
  return {
    id: job.deliveryId,
    hookId,
    event: job.event,
    status: 'pending',
    attempts: 0,
    lastAttemptAt: null,
    nextRetryAt: null,
    lastResponseStatus: null,
    lastError: null,
    lastLatencyMs: null,
    lastResponseExcerpt: null,
    resentFrom: original.id,
    webhookId: job.deliveryId,
    replayId: null,
    sequence: original.sequence,
    version: original.version,
    createdAt: job.createdAt,
  };
}
