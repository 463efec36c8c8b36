import { idOfText } from '../ids.ts';
import type { OutboxEntry } from '../outbox/repository.ts';
import type { DeliveryJob, DeliveryQueue } from '../ports/queue.ts';
import type { DeliveriesRepository } from './deliveries.ts';
import { orderedPlace, type EntityOrder } from './entity-order.ts';
import { hookErrors } from './errors.ts';
import type { HookCache } from './hook-cache.ts';
import { eventText } from './payload.ts';

/**
 * The deliveries the admission noted for ordering, per outbox entry, until that entry is forwarded: a forward that
 * makes no delivery for one of them (its hook stopped subscribing or was disabled in between) withdraws it, so that
 * the entity's later deliveries do not wait for one that will never be sent.
 */
export type OrderHolds = WeakMap<OutboxEntry, Array<{ hookId: string; key: string; sequence: number }>>;

export interface EnqueueDeps {
  deliveries: DeliveriesRepository;
  queue: DeliveryQueue;
}

/**
 * Records the deliveries as pending and stores their jobs (an operator's resend, a replay). If the queue refuses,
 * the records are withdrawn and the caller gets a 503 rather than a delivery that silently never happens.
 */
export async function enqueueDeliveries(deps: EnqueueDeps, jobs: DeliveryJob[], resentFrom: string | null = null) {
  if (jobs.length === 0) return;
  try {
    await deps.queue.enqueue(jobs, () => deps.deliveries.insertPending(jobs, resentFrom));
  } catch {
    await deps.deliveries.remove(jobs.map((job) => job.deliveryId)).catch(() => {});
    throw hookErrors.deliveryUnavailable();
  }
}

/**
 * Forwards one outbox entry: one delivery per (event, enabled hook subscribed to it), resolved now. Delivery ids
 * derive from the entry, the event's place in it and the hook, so forwarding an entry again (after a crash
 * between the enqueue and the outbox delete, or a queue that failed ambiguously) skips deliveries that already
 * finished, and the queue ignores jobs it already holds.
 */
export function createFanOut(
  deps: EnqueueDeps & { cache: HookCache; order: EntityOrder; holds: OrderHolds },
): (entry: OutboxEntry) => Promise<void> {
  return async (entry) => {
    const hooks = await deps.cache.current();
    const jobs: DeliveryJob[] = [];
    const made = new Set<string>();
    entry.events.forEach((event, index) => {
      const subscribers = hooks.subscribersOf(event.event);
      if (subscribers.length === 0) return;
      const payload = eventText(event);
      for (const hook of subscribers) {
        made.add(`${hook.id}\n${event.sequence}`);
        jobs.push({
          deliveryId: relayedDeliveryId(entry.id, index, event.sequence, hook.id),
          hookId: hook.id,
          event: event.event,
          payload,
          createdAt: entry.createdAt,
        });
      }
    });
    const held = deps.holds.get(entry);
    if (held) {
      deps.holds.delete(entry);
      for (const place of held)
        if (!made.has(`${place.hookId}\n${place.sequence}`)) await deps.order.release(place.hookId, place);
    }
    if (jobs.length === 0) return;
    // Only an entry claimed before can have deliveries already: the first forward skips the lookup.
    const known = entry.attempts > 1 ? await deps.deliveries.statusesOf(jobs.map((job) => job.deliveryId)) : new Map();
    const fresh = jobs.filter((job) => !known.has(job.deliveryId));
    const due = jobs.filter((job) => (known.get(job.deliveryId) ?? 'pending') === 'pending');
    try {
      // The records and the jobs: one commit on the SQLite store.
      await deps.queue.enqueue(due, fresh.length > 0 ? () => deps.deliveries.insertPending(fresh) : undefined);
    } catch (error) {
      // The next try may resolve other hooks: leave no pending record it would not send.
      await deps.deliveries.remove(fresh.map((job) => job.deliveryId)).catch(() => {});
      throw error;
    }
  };
}

/**
 * An event's delivery to a hook: derived from its sequence, so that a replay finds it again (an entry forwarded again
 * still gets the same ids); entries recorded before events were numbered from their place in the entry.
 */
/**
 * Before a batch of entries is forwarded (concurrently), notes in sequence order the deliveries that hooks with
 * `ordering: "entity"` will get, so that a later version never goes out before an earlier one was noted.
 */
export function createOrderAdmission(deps: {
  cache: HookCache;
  order: EntityOrder;
  holds: OrderHolds;
}): (entries: readonly OutboxEntry[]) => Promise<void> {
  return async (entries) => {
    const hooks = await deps.cache.current();
    if (!hooks.ordered) return;
    const events = entries
      .flatMap((entry) => entry.events.map((event) => ({ entry, event })))
      .sort((a, b) => a.event.sequence - b.event.sequence);
    for (const { entry, event } of events) {
      const place = orderedPlace(event as unknown as Record<string, unknown>);
      if (!place) continue;
      for (const hook of hooks.subscribersOf(event.event)) {
        if (hook.ordering !== 'entity') continue;
        await deps.order.hold(hook.id, [place]);
        const held = deps.holds.get(entry) ?? [];
        held.push({ hookId: hook.id, ...place });
        deps.holds.set(entry, held);
      }
    }
  };
}

function relayedDeliveryId(entryId: string, index: number, sequence: number | undefined, hookId: string): string {
  return typeof sequence === 'number'
    ? originalDeliveryId(sequence, hookId)
    : idOfText('dlv_', `${entryId}\n${index}\n${hookId}`);
}

/** The id (and `webhook-id`) of the first delivery of event `sequence` to a hook. */
export function originalDeliveryId(sequence: number, hookId: string): string {
  return idOfText('dlv_', `${sequence}\n${hookId}`);
}
