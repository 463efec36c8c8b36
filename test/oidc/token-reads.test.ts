import { expect } from 'chai';
import { decodeJwt } from 'jose';
import { createMemoryDocumentStore } from '../../adapters/memory/documents.ts';
import { remembered } from '../../lib/data/remembered.ts';
import { interceptedStore } from '../support/intercepted-store.ts';
import { startService, type RunningService } from '../support/service.ts';
import { createApplication, createResource, createRole, tokenRequest, type ApiFixture } from '../support/fixtures.ts';

const ORDERS = 'https://orders.example.com';

/**
 * The client, resource and role lookups of a token request are remembered between requests on the embedded store;
 * every change made through the management API must still act on the very next token request.
 */
describe('token requests after a change', () => {
  let running: RunningService;
  let orders: ApiFixture;

  before(async () => {
    running = await startService();
    orders = await createResource(running, ORDERS, ['orders:read', 'orders:write']);
  });
  after(() => running.close());

  async function grantedScope(app: { id: string; secret?: string }) {
    const res = await tokenRequest(
      running,
      { grant_type: 'client_credentials', resource: ORDERS, scope: 'orders:read orders:write' },
      app,
    );
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return decodeJwt(String(res.body.access_token)).scope;
  }

  it('grants what the roles grant now: a scope added, a role removed, a scope deleted', async () => {
    const role = await createRole(running, [orders.scopes['orders:read']!.id], 'MachineToMachine');
    const app = await createApplication(running, { type: 'MachineToMachine' });
    expect(
      (await running.request(`/api/applications/${app.id}/roles`, { method: 'POST', json: { roleIds: [role.id] } }))
        .status,
    ).to.equal(201);
    expect(await grantedScope(app)).to.equal('orders:read');
    expect(await grantedScope(app), 'asked again, unchanged').to.equal('orders:read');

    const added = await running.request(`/api/roles/${role.id}/scopes`, {
      method: 'POST',
      json: { scopeIds: [orders.scopes['orders:write']!.id] },
    });
    expect(added.status).to.equal(201);
    expect(await grantedScope(app)).to.equal('orders:read orders:write');

    const deleted = await running.request(
      `/api/resources/${orders.resource.id}/scopes/${orders.scopes['orders:write']!.id}`,
      { method: 'DELETE' },
    );
    expect(deleted.status).to.equal(204);
    expect(await grantedScope(app)).to.equal('orders:read');

    expect(
      (await running.request(`/api/applications/${app.id}/roles/${role.id}`, { method: 'DELETE' })).status,
    ).to.equal(204);
    expect(await grantedScope(app)).to.equal(undefined);
  });

  it('gives a customizer script the application as it is now', async () => {
    const role = await createRole(running, [orders.scopes['orders:read']!.id], 'MachineToMachine');
    const app = await createApplication(running, { type: 'MachineToMachine', name: 'before' });
    await running.request(`/api/applications/${app.id}/roles`, { method: 'POST', json: { roleIds: [role.id] } });
    const script = 'const getCustomJwtClaims = async ({ context }) => ({ appName: context.application.name });';
    expect(
      (await running.request('/api/configs/jwt-customizer/access-token', { method: 'PUT', json: { script } })).status,
    ).to.be.oneOf([200, 201]);
    try {
      const appName = async () => {
        const res = await tokenRequest(running, { grant_type: 'client_credentials', resource: ORDERS }, app);
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
        return decodeJwt(String(res.body.access_token)).appName;
      };
      expect(await appName()).to.equal('before');
      expect(
        (await running.request(`/api/applications/${app.id}`, { method: 'PATCH', json: { name: 'after' } })).status,
      ).to.equal(200);
      expect(await appName()).to.equal('after');
    } finally {
      await running.request('/api/configs/jwt-customizer/access-token', { method: 'DELETE' });
    }
  });

  it('refuses a rotated secret, a deleted application and a deleted resource on the next request', async () => {
    const role = await createRole(running, [orders.scopes['orders:read']!.id], 'MachineToMachine');
    const app = await createApplication(running, { type: 'MachineToMachine' });
    await running.request(`/api/applications/${app.id}/roles`, { method: 'POST', json: { roleIds: [role.id] } });
    expect(await grantedScope(app)).to.equal('orders:read');

    const { secret } = (await (
      await running.request(`/api/applications/${app.id}/secret`, { method: 'POST' })
    ).json()) as { secret: string };
    const request = { grant_type: 'client_credentials', resource: ORDERS };
    expect((await tokenRequest(running, request, app)).status, 'the old secret').to.equal(401);
    const rotated = { id: app.id, secret };
    expect(await grantedScope(rotated)).to.equal('orders:read');

    const billing = await createResource(running, 'https://billing.example.com', ['billing:read']);
    expect(
      (await tokenRequest(running, { ...request, resource: billing.resource.indicator }, rotated)).status,
    ).to.equal(200);
    expect((await running.request(`/api/resources/${billing.resource.id}`, { method: 'DELETE' })).status).to.equal(204);
    const gone = await tokenRequest(running, { ...request, resource: billing.resource.indicator }, rotated);
    expect(gone).to.deep.include({ status: 400 });
    expect(gone.body.error).to.equal('invalid_target');

    expect((await running.request(`/api/applications/${app.id}`, { method: 'DELETE' })).status).to.equal(204);
    const deleted = await tokenRequest(running, request, rotated);
    expect(deleted.status).to.equal(401);
    expect(deleted.body.error).to.equal('invalid_client');
  });
});

describe('embedded store change count', () => {
  it('grows with every insert, change, removal and expiry of the collections asked about, and only those', async () => {
    const store = createMemoryDocumentStore();
    const things = store.collection<{ _id: string; n: number; at?: Date }>('things');
    const others = store.collection<{ _id: string }>('others');
    const count = () => store.changeCount(['things'])!;
    expect(count()).to.equal(0);
    await things.insertOne({ _id: 'a', n: 1 });
    const afterInsert = count();
    expect(afterInsert).to.be.greaterThan(0);
    await others.insertOne({ _id: 'x' });
    expect(count(), 'another collection').to.equal(afterInsert);
    expect(store.changeCount(['things', 'others'])).to.be.greaterThan(afterInsert);
    await things.updateOne({ _id: 'a' }, { $set: { n: 1 } });
    expect(count(), 'an update that changes nothing').to.equal(afterInsert);
    await things.updateOne({ _id: 'a' }, { $set: { n: 2 } });
    const afterUpdate = count();
    expect(afterUpdate).to.be.greaterThan(afterInsert);
    await things.deleteOne({ _id: 'a' });
    const afterDelete = count();
    expect(afterDelete).to.be.greaterThan(afterUpdate);

    await things.createIndex({ keys: { at: 1 }, expireAfterSeconds: 0 });
    await things.insertOne({ _id: 'b', n: 3, at: new Date(Date.now() - 1000) });
    const withExpired = count();
    // The document was already due when it was inserted: reading the count removes it, and that removal counts.
    expect(withExpired).to.be.greaterThan(afterDelete + 1);
    expect(await things.findOne({ _id: 'b' })).to.equal(null);

    await store
      .transaction(async () => {
        await things.insertOne({ _id: 'c', n: 4 });
        expect(
          store.changeCount(['things']),
          'inside a transaction that changed it, nothing may be remembered',
        ).to.equal(undefined);
        expect(store.changeCount(['others']), 'a collection it did not change').to.be.a('number');
        throw new Error('abort');
      })
      .catch(() => {});
    expect(await things.findOne({ _id: 'c' }), 'rolled back').to.equal(null);
    expect(count(), 'an aborted transaction changed nothing anyone saw').to.equal(withExpired);
  });
});

describe('remembered reads', () => {
  it('load once per argument list until a collection read changes; a failure or a store that cannot tell loads again', async () => {
    const store = createMemoryDocumentStore();
    const things = store.collection<{ _id: string; n: number }>('things');
    await things.insertOne({ _id: 'a', n: 1 });
    let loads = 0;
    let failNext = false;
    const read = remembered(store, ['things'], async (id: string) => {
      loads += 1;
      if (failNext) {
        failNext = false;
        throw new Error('store failed');
      }
      return { n: (await things.findOne({ _id: id }))?.n };
    });

    const [first, second] = await Promise.all([read('a'), read('a')]);
    expect(first).to.deep.equal({ n: 1 });
    expect(second, 'asked together: one load').to.equal(first);
    expect(loads).to.equal(1);
    expect(Object.isFrozen(first), 'shared answers are frozen').to.equal(true);
    await read('a');
    expect(loads).to.equal(1);

    await store.collection('others').insertOne({ _id: 'x' });
    await read('a');
    expect(loads, 'a collection not read').to.equal(1);

    await things.updateOne({ _id: 'a' }, { $set: { n: 2 } });
    failNext = true;
    let failure: unknown;
    await read('a').catch((error: unknown) => {
      failure = error;
    });
    expect(failure).to.be.instanceOf(Error);
    expect(await read('a'), 'a failed load is not remembered').to.deep.equal({ n: 2 });
    expect(loads).to.equal(3);

    const intercepted = interceptedStore(() => {});
    let direct = 0;
    const uncached = remembered(intercepted, ['things'], async () => {
      direct += 1;
      return direct;
    });
    await uncached();
    await uncached();
    expect(direct, 'a store without a change count is read every time').to.equal(2);
  });
});
