import type { EventListener } from '../events/bus.ts';
import type { DeliveryJob, DeliveryQueue } from '../ports/queue.ts';
import type { DeliveriesRepository } from './deliveries.ts';
import { hookErrors } from './errors.ts';
import type { HookCache } from './hook-cache.ts';
import { eventBody, hookPayload, newDeliveryId } from './payload.ts';

export interface EnqueueDeps {
  deliveries: DeliveriesRepository;
  queue: DeliveryQueue;
}

/**
 * Records the deliveries as pending, then stores their jobs. Both must hold before the triggering request
 * responds; if the queue refuses, the records are withdrawn and the caller gets a 503 rather than a
 * delivery that silently never happens.
 */
export async function enqueueDeliveries(deps: EnqueueDeps, jobs: DeliveryJob[], resentFrom: string | null = null) {
  if (jobs.length === 0) return;
  await deps.deliveries.insertPending(jobs, resentFrom);
  try {
    await deps.queue.enqueue(jobs);
  } catch {
    await deps.deliveries.remove(jobs.map((job) => job.deliveryId)).catch(() => {});
    throw hookErrors.deliveryUnavailable();
  }
}

/** The event-bus listener: one job per (event, enabled hook subscribed to it). */
export function createFanOut(deps: EnqueueDeps & { cache: HookCache }): EventListener {
  return async (events) => {
    const hooks = await deps.cache.current();
    const createdAt = Date.now();
    const jobs: DeliveryJob[] = [];
    for (const event of events) {
      const subscribers = hooks.subscribersOf(event.event);
      if (subscribers.length === 0) continue;
      const body = eventBody(event);
      for (const hook of subscribers) {
        jobs.push({
          deliveryId: newDeliveryId(), hookId: hook.id, event: event.event, payload: hookPayload(body, hook.id), createdAt,
        });
      }
    }
    await enqueueDeliveries(deps, jobs);
  };
}
