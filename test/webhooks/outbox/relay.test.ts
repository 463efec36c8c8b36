import { expect } from 'chai';
import { pino } from 'pino';
import { createMemoryDeliveryQueue } from '../../../adapters/memory/delivery-queue.ts';
import { EventBus } from '../../../lib/events/bus.ts';
import { createEventLog } from '../../../lib/events/event-log.ts';
import { createOutboxRecorder } from '../../../lib/outbox/recorder.ts';
import { createOutboxRelay, type OutboxRelay } from '../../../lib/outbox/relay.ts';
import { createOutboxRepository, type OutboxEntry } from '../../../lib/outbox/repository.ts';
import type { DocumentStore } from '../../../lib/ports/documents.ts';
import { craftedEvent } from '../../support/events.ts';
import { startService } from '../../support/service.ts';
import { eventually } from '../../support/wait.ts';
import { forEachBackend } from '../../support/storage/backends.ts';
import { FAST_ENV, createHook, getJson } from '../../support/webhooks/hooks.ts';

const logger = pino({ level: 'silent' });

forEachBackend('outbox relay', (backend) => {
  let store: DocumentStore;
  const relays: OutboxRelay[] = [];
  beforeEach(async () => {
    store = await backend.open();
  });
  afterEach(async () => {
    for (const relay of relays.splice(0)) await relay.stop();
  });

  function relayOf(
    forward: (entry: OutboxEntry) => Promise<void>,
    options: Parameters<typeof createOutboxRelay>[0]['options'] = {},
  ) {
    const outbox = createOutboxRepository(store);
    const relay = createOutboxRelay({ store, outbox, forward, logger, options });
    relays.push(relay);
    return { relay, outbox };
  }

  it('never hands one entry to two relays, and forwards every entry', async () => {
    const outbox = createOutboxRepository(store);
    await outbox.prepare();
    for (let i = 0; i < 60; i += 1) await outbox.add([craftedEvent('User.Created', { data: { sequence: i } })]);
    const forwarded: Array<{ relay: string; id: string }> = [];
    const slowly = (relay: string) => async (entry: OutboxEntry) => {
      forwarded.push({ relay, id: entry.id });
      await new Promise((resolve) => setImmediate(resolve));
    };
    const first = relayOf(slowly('first'), { batch: 7 });
    const second = relayOf(slowly('second'), { batch: 5 });
    first.relay.start();
    second.relay.start();
    await eventually(async () => (await outbox.size()) === 0, { what: 'an empty outbox' });
    expect(forwarded).to.have.length(60);
    expect(new Set(forwarded.map((entry) => entry.id)).size).to.equal(60);
  });

  it('takes over an entry whose relay died holding it, once its lease ends', async () => {
    const outbox = createOutboxRepository(store);
    await outbox.add([craftedEvent('User.Created', { data: { id: 'orphan' } })]);
    const [held] = await outbox.claim(10, 300);
    expect(held).to.not.equal(undefined);
    const forwarded: string[] = [];
    const { relay } = relayOf(
      async (entry) => {
        forwarded.push(entry.id);
      },
      { pollMs: 50 },
    );
    relay.start();
    await eventually(() => forwarded.length === 1, { what: 'the orphaned entry forwarded' });
    expect(forwarded).to.deep.equal([held!.id]);
    expect(await outbox.size()).to.equal(0);
  });

  it('keeps an entry it could not forward and tries it again', async () => {
    const outbox = createOutboxRepository(store);
    await outbox.add([craftedEvent('User.Created', { data: { id: 'retried' } })]);
    let attempts = 0;
    const { relay } = relayOf(
      async () => {
        attempts += 1;
        if (attempts < 3) throw new Error('queue down');
      },
      { pollMs: 20, retryMs: 20 },
    );
    relay.start();
    await eventually(async () => attempts === 3 && (await outbox.size()) === 0, {
      what: 'the third attempt forwarded',
    });
  });

  it('forwards an entry committed in a transaction right away, without waiting for its next poll', async () => {
    const outbox = createOutboxRepository(store);
    const forwarded: OutboxEntry[] = [];
    const { relay } = relayOf(
      async (entry) => {
        forwarded.push(entry);
      },
      { pollMs: 60_000 },
    );
    relay.start();
    await eventually(async () => (await store.collection('outbox').countDocuments({})) === 0);
    const log = createEventLog(store, { retentionMs: 60_000 });
    await log.prepare();
    const bus = new EventBus(createOutboxRecorder({ store, outbox, log, wake: relay.wake }));
    await store.transaction(() => bus.publish([craftedEvent('User.Created', { data: { id: 'prompt' } })]));
    await eventually(() => forwarded.length === 1, {
      timeoutMs: 5000,
      what: 'the entry forwarded before the next poll',
    });
    expect(forwarded[0]!.events.map((event) => event.event)).to.deep.equal(['User.Created']);
  });
});

describe('outbox relay → delivery queue: deterministic job ids', () => {
  it('forwarding one entry twice leaves one job and one delivery per (event, hook)', async () => {
    const queue = createMemoryDeliveryQueue();
    const running = await startService({ env: FAST_ENV, stores: { queue }, webhookWorker: false });
    try {
      const hook = await createHook(running, { events: ['User.Created'], config: { url: 'http://127.0.0.1:9/never' } });
      await eventually(async () => (await running.service.core.store.collection('outbox').countDocuments({})) === 0);
      const entry: OutboxEntry = {
        id: 'obx_twice',
        claim: 'test',
        createdAt: Date.now(),
        attempts: 2,
        events: [
          craftedEvent('User.Created', { data: { id: 'u1' } }),
          craftedEvent('User.Created', { data: { id: 'u2' } }),
        ],
      };
      await running.service.webhooks.fanOut(entry);
      await running.service.webhooks.fanOut(entry);
      expect(await queue.pendingCount()).to.equal(2);
      const deliveries = await getJson<Array<{ id: string }>>(running, `/api/hooks/${hook.id}/deliveries`);
      expect(deliveries).to.have.length(2);
      expect(new Set(deliveries.map((delivery) => delivery.id)).size).to.equal(2);
    } finally {
      await running.close();
      await queue.close();
    }
  });
});
