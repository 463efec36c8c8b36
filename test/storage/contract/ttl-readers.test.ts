import { expect } from 'chai';
import { createOidcRevocation } from '../../../lib/oidc/revocation.ts';
import { collectionName } from '../../../lib/oidc/adapter.ts';
import type { DocumentStore } from '../../../lib/ports/documents.ts';
import { createDeliveriesRepository } from '../../../lib/webhooks/deliveries.ts';
import { createDeliveryLogs } from '../../../lib/webhooks/delivery-logs.ts';
import { forEachBackend } from '../../support/storage/backends.ts';

const RETENTION_MS = 60_000;
const PAGE = { page: 1, pageSize: 20 };

/**
 * MongoDB's TTL monitor removes expired documents a minute or more after they expire. The stores here have
 * no TTL index at all (prepare() is not called), so every expired document stays, as it does on MongoDB
 * until the monitor passes: readers must leave them out by comparing the expiry themselves.
 */
forEachBackend('readers of expiring documents', (backend) => {
  let store: DocumentStore;
  before(async () => {
    store = await backend.open();
  });

  it('lists and finds deliveries only while they are retained', async () => {
    const deliveries = createDeliveriesRepository(store, { retentionMs: RETENTION_MS });
    const job = (deliveryId: string, createdAt: number) => ({
      deliveryId,
      hookId: 'h1',
      event: 'User.Created',
      payload: '{}',
      createdAt,
    });
    await deliveries.insertPending([job('dlv_old', Date.now() - 2 * RETENTION_MS), job('dlv_new', Date.now())]);
    const { items, total } = await deliveries.list('h1', PAGE);
    expect(items.map((item) => item.id)).to.deep.equal(['dlv_new']);
    expect(total).to.equal(1);
    expect(await deliveries.find('h1', 'dlv_old')).to.equal(null);
    expect(await deliveries.find('h1', 'dlv_new')).to.not.equal(null);
  });

  it('shows, counts and lists attempt logs only while they are retained', async () => {
    const logs = createDeliveryLogs(store, { retentionMs: RETENTION_MS });
    const attempt = (createdAt: number, succeeded: boolean) => ({
      hookId: 'h2',
      deliveryId: 'dlv_logged',
      event: 'User.Created',
      attempt: 1,
      succeeded,
      responseStatus: 200,
      responseBody: null,
      error: null,
      latencyMs: 1,
      nextRetryAt: null,
      createdAt,
    });
    await logs.record(attempt(Date.now() - 2 * RETENTION_MS, true));
    await logs.record(attempt(Date.now(), false));
    expect((await logs.recent('h2', 0, PAGE)).total).to.equal(1);
    expect(await logs.stats('h2', 0)).to.deep.equal({ successCount: 0, requestCount: 1 });
    expect((await logs.ofDelivery('dlv_logged')).map((log) => log.payload.result)).to.deep.equal(['Error']);
  });

  it('counts only live sessions and grants when revoking a user or an application', async () => {
    const revocation = createOidcRevocation(store);
    const past = new Date(Date.now() - 1000);
    const future = new Date(Date.now() + 3_600_000);
    await store.collection(collectionName('Session')).insertMany([
      { _id: 's1', payload: { accountId: 'u1' }, expiresAt: past },
      { _id: 's2', payload: { accountId: 'u1' }, expiresAt: future },
    ]);
    await store.collection(collectionName('Grant')).insertMany([
      { _id: 'g1', payload: { accountId: 'u1', clientId: 'c1' }, expiresAt: past },
      { _id: 'g2', payload: { accountId: 'u1', clientId: 'c1' }, expiresAt: future },
      { _id: 'g3', payload: { accountId: 'u2', clientId: 'c2' }, expiresAt: past },
    ]);
    expect(await revocation.activeGrants('u1', 'c1')).to.deep.equal(['g2']);
    expect(await revocation.revokeUser('u1')).to.deep.equal({ sessions: 1, grants: 1 });
    expect(await store.collection(collectionName('Grant')).countDocuments({ 'payload.accountId': 'u1' })).to.equal(0);
    expect(await revocation.revokeClient('c2')).to.equal(0);
  });
});
