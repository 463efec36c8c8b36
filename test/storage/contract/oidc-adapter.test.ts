/**
 * The node-oidc-provider adapter on every reachable document store: expiry, consume, lookups by user code
 * and uid, revoke by grant. MongoDB runs when MONGODB_URI is set and is reported as pending otherwise.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { Adapter } from 'oidc-provider';
import { createMemoryDocumentStore } from '../../../adapters/memory/documents.ts';
import { createMongoDocumentStore } from '../../../adapters/mongodb/documents.ts';
import { createAdapterFactory, OIDC_MODELS, prepareOidcCollections } from '../../../lib/oidc/adapter.ts';
import type { DocumentStore } from '../../../lib/ports/documents.ts';
import { withFakeClock } from '../../support/clock.ts';

const backends: Array<{ name: string; open: (() => Promise<DocumentStore>) | null }> = [
  { name: 'memory', open: async () => createMemoryDocumentStore() },
  {
    name: 'mongodb',
    open: process.env.MONGODB_URI
      ? () => createMongoDocumentStore(process.env.MONGODB_URI!, { dbName: `oidc_adapter_${randomUUID().slice(0, 8)}` })
      : null,
  },
];

for (const backend of backends) {
  describe(`oidc-provider adapter contract (${backend.name})`, () => {
    let store: DocumentStore;
    let adapter: (model: string) => Adapter;
    const clients = new Map<string, Record<string, unknown>>([['app1', { client_id: 'app1' }]]);

    before(async function () {
      if (!backend.open) this.skip();
      store = await backend.open();
      await prepareOidcCollections(store, OIDC_MODELS);
      adapter = createAdapterFactory(store, async (id) => clients.get(id) as never);
    });
    after(async () => {
      if (store && store.kind === 'mongodb') {
        for (const model of OIDC_MODELS) await store.collection(`oidc_${model}`).deleteMany({});
      }
      await store?.close();
    });

    it('stores, finds and destroys a model', async () => {
      const tokens = adapter('AccessToken');
      await tokens.upsert('at1', { accountId: 'u1', grantId: 'g1', kind: 'AccessToken' } as never, 60);
      expect(await tokens.find('at1')).to.deep.include({ accountId: 'u1', grantId: 'g1' });
      await tokens.destroy('at1');
      expect(await tokens.find('at1')).to.equal(undefined);
    });

    it('hides expired entries even before the store removes them', () =>
      withFakeClock(async (clock) => {
        // Expiry is read against this process's clock, which MongoDB's own TTL monitor never sees.
        const sessions = adapter('Session');
        await sessions.upsert('s-expiring', { uid: 'uid-expiring', kind: 'Session' } as never, 60);
        clock.advance(59_999);
        expect(await sessions.find('s-expiring'), 'a millisecond before it expires').not.to.equal(undefined);
        expect(await sessions.findByUid('uid-expiring')).not.to.equal(undefined);
        clock.advance(1);
        expect(await sessions.find('s-expiring')).to.equal(undefined);
        expect(await sessions.findByUid('uid-expiring')).to.equal(undefined);
      }));

    it('upserts replace the payload', async () => {
      const grants = adapter('Grant');
      await grants.upsert('g-up', { accountId: 'u1', kind: 'Grant', openid: { scope: 'openid' } } as never, 60);
      await grants.upsert('g-up', { accountId: 'u1', kind: 'Grant' } as never, 60);
      expect(await grants.find('g-up')).not.to.have.property('openid');
    });

    it('marks consumption', async () => {
      const codes = adapter('AuthorizationCode');
      await codes.upsert('code1', { grantId: 'g2', kind: 'AuthorizationCode' } as never, 60);
      await codes.consume('code1');
      expect((await codes.find('code1'))?.consumed).to.be.a('number');
    });

    it('finds sessions by uid and device codes by user code', async () => {
      await adapter('Session').upsert('s1', { uid: 'uid-1', accountId: 'u1', kind: 'Session' } as never, 60);
      expect(await adapter('Session').findByUid('uid-1')).to.deep.include({ accountId: 'u1' });
      await adapter('DeviceCode').upsert(
        'dc1',
        { userCode: 'ABCD-EFGH', grantId: 'g3', kind: 'DeviceCode' } as never,
        60,
      );
      expect(await adapter('DeviceCode').findByUserCode('ABCD-EFGH')).to.deep.include({ grantId: 'g3' });
    });

    it('revokes every token of a grant and no other', async () => {
      const access = adapter('AccessToken');
      const refresh = adapter('RefreshToken');
      await access.upsert('at-a', { grantId: 'grant-a', kind: 'AccessToken' } as never, 60);
      await refresh.upsert('rt-a', { grantId: 'grant-a', kind: 'RefreshToken' } as never, 60);
      await access.upsert('at-b', { grantId: 'grant-b', kind: 'AccessToken' } as never, 60);
      await access.revokeByGrantId('grant-a');
      await refresh.revokeByGrantId('grant-a');
      expect(await access.find('at-a')).to.equal(undefined);
      expect(await refresh.find('rt-a')).to.equal(undefined);
      expect(await access.find('at-b')).not.to.equal(undefined);
    });

    it('serves clients from the application loader and refuses to write them', async () => {
      const clientAdapter = adapter('Client');
      expect(await clientAdapter.find('app1')).to.deep.equal({ client_id: 'app1' });
      expect(await clientAdapter.find('missing')).to.equal(undefined);
      let failed = false;
      try {
        await clientAdapter.upsert('x', {} as never, 0);
      } catch {
        failed = true;
      }
      expect(failed).to.equal(true);
    });
  });
}
