import type { DocumentStore } from '../ports/documents.ts';
import { entityKey, entityOf } from '../events/entities.ts';

/** What a hook's deliveries of one entity wait for: the sequences of those not yet finished. */
interface OrderRecord {
  _id: string;
  pending: number[];
}

/** How long a delivery held back behind an earlier one of its entity waits before it looks again. */
export const ORDER_WAIT_MS = 200;

export const HOOK_ORDERINGS = ['none', 'entity'] as const;
export type HookOrdering = (typeof HOOK_ORDERINGS)[number];

/** The entity a delivery's payload is about and its event's sequence, when it has both (data events). */
export function orderedPlace(payload: Record<string, unknown>): { key: string; sequence: number } | undefined {
  const entity = entityOf(payload);
  return entity && typeof payload.sequence === 'number'
    ? { key: entityKey(entity), sequence: payload.sequence }
    : undefined;
}

/**
 * Per-entity order for hooks with `ordering: "entity"`: one small document per (hook, entity) lists the sequences of
 * its deliveries not yet finished. A delivery goes out only while its own is the lowest; the others are deferred (no
 * attempt used) until the ones before them succeeded or failed for good. Other entities' deliveries never wait.
 */
export function createEntityOrder(store: DocumentStore) {
  const order = store.collection<OrderRecord>('webhook_entity_order');
  const id = (hookId: string, key: string) => `${hookId}\n${key}`;

  return {
    /** Notes deliveries about to be queued. */
    async hold(hookId: string, places: ReadonlyArray<{ key: string; sequence: number }>): Promise<void> {
      for (const place of places) {
        await order.updateOne(
          { _id: id(hookId, place.key) },
          { $addToSet: { pending: place.sequence } },
          { upsert: true },
        );
      }
    },
    /** Whether an earlier delivery of the same entity is still unfinished. */
    async mustWait(hookId: string, place: { key: string; sequence: number }): Promise<boolean> {
      const doc = await order.findOne({ _id: id(hookId, place.key) });
      return doc?.pending.some((sequence) => sequence < place.sequence) ?? false;
    },
    /** Drops what a hook's deliveries wait for (the hook was deleted, or its ordering switched). */
    async forgetHook(hookId: string): Promise<void> {
      await order.deleteMany({ _id: { $regex: `^${hookId.replace(/[^\w-]/g, '\\$&')}\n` } });
    },
    /** A delivery finished (either way): those behind it may go. */
    async release(hookId: string, place: { key: string; sequence: number }): Promise<void> {
      const doc = await order.findOneAndUpdate(
        { _id: id(hookId, place.key) },
        { $pull: { pending: place.sequence } },
        { returnDocument: 'after' },
      );
      if (doc && doc.pending.length === 0) await order.deleteOne({ _id: doc._id, pending: { $size: 0 } });
    },
  };
}

export type EntityOrder = ReturnType<typeof createEntityOrder>;
