import { expect } from 'chai';
import { craftedEvent } from '../../support/events.ts';
import { createMemoryDocumentStore } from '../../../adapters/memory/documents.ts';
import { createMemoryKeyValueStore } from '../../../adapters/memory/kv.ts';
import { createHookCache } from '../../../lib/webhooks/hook-cache.ts';
import { createHooksRepository, type HookRecord } from '../../../lib/webhooks/hooks.ts';
import { startService, type RunningService } from '../../support/service.ts';
import { FAST_ENV, REDIS_URL, createHook, getJson, startHookService } from '../../support/webhooks/hooks.ts';
import { Receiver, eventually } from '../../support/webhooks/receiver.ts';

function hook(id: string, overrides: Partial<HookRecord> = {}): HookRecord {
  return {
    id,
    name: id,
    event: null,
    events: ['User.Created'],
    config: { url: `https://example.com/${id}` },
    enabled: true,
    signingKey: 'whsec_AAAA',
    retiredSigningKeys: [],
    createdAt: 0,
    updatedAt: 0,
    ...overrides,
  };
}

describe('hook cache', () => {
  it('reads the hooks once, not per event, until a change invalidates it', async () => {
    const store = createMemoryDocumentStore();
    const repository = createHooksRepository(store);
    let loads = 0;
    const counting = {
      ...repository,
      all: async () => {
        loads += 1;
        return repository.all();
      },
    };
    const cache = createHookCache({ hooks: counting, kv: createMemoryKeyValueStore() });
    await repository.insert(hook('a'));
    await repository.insert(hook('b', { enabled: false }));

    for (let i = 0; i < 50; i += 1) await cache.current();
    await Promise.all(Array.from({ length: 20 }, () => cache.current()));
    expect(loads).to.equal(1);
    const snapshot = await cache.current();
    expect(snapshot.subscribersOf('User.Created').map((h) => h.id)).to.deep.equal(['a']);
    expect(snapshot.byId('b')?.enabled).to.equal(false);

    await repository.update('a', { events: ['Role.Created'] });
    await cache.invalidate();
    expect((await cache.current()).subscribersOf('Role.Created').map((h) => h.id)).to.deep.equal(['a']);
    expect(loads).to.equal(2);
  });

  it('is invalidated by a change made through another cache sharing the key-value store', async () => {
    const store = createMemoryDocumentStore();
    const kv = createMemoryKeyValueStore();
    const repository = createHooksRepository(store);
    const web = createHookCache({ hooks: repository, kv });
    const worker = createHookCache({ hooks: repository, kv });
    expect((await worker.current()).byId('a')).to.equal(undefined);
    await repository.insert(hook('a'));
    await web.invalidate();
    expect((await worker.current()).byId('a')?.id).to.equal('a');
  });

  it('reads the hooks afresh when the key-value store does not answer, rather than failing or waiting', async () => {
    const store = createMemoryDocumentStore();
    const repository = createHooksRepository(store);
    const silent = { ...createMemoryKeyValueStore(), get: () => new Promise<string | null>(() => {}) };
    const failing = { ...createMemoryKeyValueStore(), get: () => Promise.reject(new Error('connection is closed')) };
    await repository.insert(hook('a'));
    for (const kv of [silent, failing]) {
      const cache = createHookCache({ hooks: repository, kv });
      expect((await cache.current()).subscribersOf('User.Created').map((h) => h.id)).to.deep.equal(['a']);
    }
  });

  describe('across service instances sharing documents and Redis (as processes share MongoDB and Redis)', () => {
    let receiver: Receiver;
    let admin: RunningService;
    let publisher: RunningService;

    before(async () => {
      receiver = await Receiver.start();
      admin = await startHookService('bullmq');
      // One deployment: processes sharing a database share BASE_URL (each start points the management API at it).
      publisher = await startService({
        env: { ...FAST_ENV, REDIS_URL, BASE_URL: admin.baseUrl },
        stores: { documents: admin.service.core.store },
      });
    });
    after(async () => {
      await publisher.close();
      await admin.close();
      await receiver.close();
    });

    const publish = () => publisher.service.core.bus.publish([craftedEvent('User.Created', { data: {} })]);

    it("fans out with another instance's hook changes at once", async () => {
      await publish();
      const created = await createHook(admin, { events: ['User.Created'], config: { url: receiver.url('/shared-1') } });
      await publish();
      await eventually(() => receiver.requests('/shared-1')[0]);

      await admin.request(`/api/hooks/${created.id}`, {
        method: 'PATCH',
        json: { config: { url: receiver.url('/shared-2') } },
      });
      await publish();
      await eventually(() => receiver.requests('/shared-2')[0]);

      await admin.request(`/api/hooks/${created.id}`, { method: 'PATCH', json: { enabled: false } });
      await publish();
      // Once the shared outbox is empty every event was fanned out: none to the disabled hook.
      await eventually(async () => (await publisher.service.core.store.collection('outbox').countDocuments({})) === 0);
      const deliveries = await getJson<Array<{ status: string }>>(admin, `/api/hooks/${created.id}/deliveries`);
      expect(deliveries).to.have.length(2);
      await eventually(async () =>
        (await getJson<Array<{ status: string }>>(admin, `/api/hooks/${created.id}/deliveries`)).every(
          (delivery) => delivery.status === 'succeeded',
        ),
      );
      expect(receiver.requests('/shared-1')).to.have.length(1);
      expect(receiver.requests('/shared-2')).to.have.length(1);
    });
  });
});
