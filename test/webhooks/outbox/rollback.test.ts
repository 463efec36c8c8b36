import { expect } from 'chai';
import type { IdentityEvent } from '../../../lib/events/bus.ts';
import type { DocumentStore } from '../../../lib/ports/documents.ts';
import { interceptedStore } from '../../support/intercepted-store.ts';
import { createResource } from '../../support/fixtures.ts';
import { startService, type RunningService } from '../../support/service.ts';
import { FAST_ENV, createHook, getJson } from '../../support/webhooks/hooks.ts';
import { Receiver, eventually } from '../../support/webhooks/receiver.ts';

/** The embedded store, with role–scope links that fail on demand: a handler that fails after its first write. */
function storeFailingLinks(): { store: DocumentStore; fault: { on: boolean } } {
  const fault = { on: false };
  const store = interceptedStore((name, method) => {
    if (fault.on && name === 'roles_scopes' && method === 'updateOne') throw new Error('link write failed');
  });
  return { store, fault };
}

describe('outbox: a request that fails commits nothing (embedded store)', () => {
  let receiver: Receiver;
  let running: RunningService;
  let fault: { on: boolean };
  const published: IdentityEvent[] = [];

  before(async () => {
    receiver = await Receiver.start();
    const failing = storeFailingLinks();
    fault = failing.fault;
    running = await startService({ env: FAST_ENV, stores: { documents: failing.store } });
    running.service.core.bus.subscribe(async (events) => {
      published.push(...events);
    });
  });
  after(async () => {
    await running.close();
    await receiver.close();
  });

  it('rolls back the role and its outbox entry when the handler fails after writing, and sends nothing', async () => {
    const hook = await createHook(running, {
      events: ['Role.Created', 'Role.Scopes.Updated'],
      config: { url: receiver.url('/roles') },
    });
    const { scopes } = await createResource(running, 'https://rollback.example.com', ['read']);
    const scope = scopes.read!;

    fault.on = true;
    const failed = await running.request('/api/roles', {
      method: 'POST',
      json: { name: 'never-committed', description: 'x', scopeIds: [scope.id] },
    });
    expect(failed.status).to.equal(500);
    fault.on = false;

    expect(await getJson(running, '/api/roles?search=never-committed')).to.deep.equal([]);
    expect(await running.service.core.store.collection('roles').findOne({ name: 'never-committed' })).to.equal(null);

    // A later request goes through; once its event arrived, the failed one would have been ahead of it.
    const ok = await running.request('/api/roles', {
      method: 'POST',
      json: { name: 'committed', description: 'x', scopeIds: [scope.id] },
    });
    expect(ok.status).to.equal(201);
    await eventually(() => receiver.requests('/roles').length >= 2);
    await eventually(async () => (await running.service.core.store.collection('outbox').countDocuments({})) === 0);
    const names = receiver
      .requests('/roles')
      .map((request) => JSON.parse(request.body) as { event: string; data: unknown });
    expect(names.map((body) => body.event).sort()).to.deep.equal(['Role.Created', 'Role.Scopes.Updated']);
    expect(JSON.stringify(names)).to.not.include('never-committed');
    expect(JSON.stringify(published)).to.not.include('never-committed');
    expect((await getJson(running, `/api/hooks/${hook.id}/deliveries`)).length).to.equal(2);
  });

  it('keeps an exception event a failing request reports, outside its transaction', async () => {
    const store = running.service.core.store;
    const outbox = store.collection('outbox');
    const before = published.length;
    const failure = store.transaction(async () => {
      await store.collection('roles').insertOne({ _id: 'ghost', name: 'ghost-role' });
      await running.service.core.bus.emit('Identifier.Lockout', { type: 'username', value: 'ghost' });
      await running.service.core.bus.emitAll(
        {
          ip: '127.0.0.1',
          userAgent: undefined,
          path: '/roles',
          method: 'POST',
          status: 201,
          params: {},
          matchedRoute: '/roles',
        },
        [
          {
            event: 'Role.Created',
            payload: {
              data: { id: 'ghost', name: 'ghost-role', description: '', type: 'User', isDefault: false, createdAt: 0 },
            },
          },
        ],
      );
      throw new Error('handler failed');
    });
    await failure.then(
      () => expect.fail('the transaction must fail'),
      (error: Error) => expect(error.message).to.equal('handler failed'),
    );
    expect(await store.collection('roles').findOne({ _id: 'ghost' })).to.equal(null);
    expect(published.slice(before).map((event) => event.event)).to.deep.equal(['Identifier.Lockout']);
    await eventually(async () => (await outbox.countDocuments({})) === 0);
  });
});
