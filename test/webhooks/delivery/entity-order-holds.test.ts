import { expect } from 'chai';
import { createMemoryDeliveryQueue } from '../../../adapters/memory/delivery-queue.ts';
import { createMemoryDocumentStore } from '../../../adapters/memory/documents.ts';
import type { OutboxEntry } from '../../../lib/outbox/repository.ts';
import { createDeliveriesRepository } from '../../../lib/webhooks/deliveries.ts';
import { createEntityOrder } from '../../../lib/webhooks/entity-order.ts';
import { createFanOut, createOrderAdmission, type OrderHolds } from '../../../lib/webhooks/fan-out.ts';
import type { HookCache, HookSnapshot } from '../../../lib/webhooks/hook-cache.ts';
import type { HookRecord } from '../../../lib/webhooks/hooks.ts';

const EVENT = 'User.Data.Updated';
const hook = { id: 'hook_ordered', enabled: true, ordering: 'entity', events: [EVENT] } as unknown as HookRecord;

/** A cache whose snapshot the test switches: the hook subscribed, or no longer. */
function switchableCache() {
  let subscribed = true;
  const snapshot = (): HookSnapshot => ({
    byId: (id) => (id === hook.id ? hook : undefined),
    subscribersOf: (event) => (subscribed && event === EVENT ? [hook] : []),
    ordered: true,
  });
  const cache: HookCache = { current: async () => snapshot(), invalidate: async () => {} };
  return {
    cache,
    unsubscribe: () => {
      subscribed = false;
    },
  };
}

function entryWith(sequence: number): OutboxEntry {
  return {
    id: `obx_${sequence}`,
    claim: 'claim',
    attempts: 1,
    createdAt: Date.now(),
    events: [
      {
        event: EVENT,
        createdAt: new Date().toISOString(),
        data: { id: 'usr_1' },
        sequence,
        version: sequence,
      } as never,
    ],
  };
}

describe('ordering "entity": what the admission notes and the fan-out does not send', () => {
  async function setUp() {
    const store = createMemoryDocumentStore();
    const order = createEntityOrder(store);
    const holds: OrderHolds = new WeakMap();
    const { cache, unsubscribe } = switchableCache();
    const deps = {
      deliveries: createDeliveriesRepository(store, { retentionMs: 60_000 }),
      queue: createMemoryDeliveryQueue(),
      cache,
      order,
      holds,
    };
    return { order, unsubscribe, admit: createOrderAdmission(deps), fanOut: createFanOut(deps) };
  }
  const later = { key: 'User:usr_1', sequence: 8 };

  it("keeps a noted delivery that the fan-out sends, so the entity's later ones wait for it", async () => {
    const { order, admit, fanOut } = await setUp();
    const entry = entryWith(7);
    await admit([entry]);
    await fanOut(entry);
    expect(await order.mustWait(hook.id, later)).to.equal(true);
  });

  it('withdraws a noted delivery that the fan-out no longer makes (the hook stopped subscribing in between)', async () => {
    const { order, admit, fanOut, unsubscribe } = await setUp();
    const entry = entryWith(7);
    await admit([entry]);
    expect(await order.mustWait(hook.id, later)).to.equal(true);
    unsubscribe();
    await fanOut(entry);
    expect(await order.mustWait(hook.id, later), 'a later delivery of the entity goes out').to.equal(false);
  });

  it("forgets what one hook's deliveries wait for, and only that hook's (its ordering switched, or it was deleted)", async () => {
    const { order } = await setUp();
    await order.hold(hook.id, [{ key: 'User:usr_1', sequence: 3 }]);
    await order.hold('hook_other', [{ key: 'User:usr_1', sequence: 3 }]);
    await order.forgetHook(hook.id);
    expect(await order.mustWait(hook.id, later)).to.equal(false);
    expect(await order.mustWait('hook_other', later)).to.equal(true);
  });
});
