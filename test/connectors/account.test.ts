import { expect } from 'chai';
import { accountClient, asUser, passwordRecord } from '../support/account.ts';
import { createUser } from '../support/fixtures.ts';
import { json, uniqueName } from '../support/experience.ts';
import { API_CALLBACK, paramsOf, startFederation, type Federation } from '../support/connectors.ts';

const PASSWORD = 'correct horse battery';

describe('Account API: users link and unlink social identities themselves (a second instance as the provider)', () => {
  let f: Federation;
  let connectorId: string;

  before(async () => {
    f = await startFederation();
    connectorId = (await f.socialConnector('oidc', 'upstream-account')).id;
  });
  after(() => f.close());

  async function signedIn() {
    const username = uniqueName('acct');
    const user = await createUser(f.h.running, [], { username }, PASSWORD);
    const token = await (await accountClient(f.h.running)).signIn(username, PASSWORD);
    return { user, me: asUser(f.h.running, token) };
  }

  async function socialRecord(me: ReturnType<typeof asUser>, person: Awaited<ReturnType<Federation['upstreamUser']>>) {
    const started = await me('/api/verifications/social', {
      method: 'POST',
      json: { connectorId, redirectUri: API_CALLBACK, state: 'account-state-1' },
    });
    expect(started.status, JSON.stringify(started.body)).to.equal(201);
    const callback = await f.signInUpstream(started.body!.authorizationUri as string, person);
    const verified = await me('/api/verifications/social/verify', {
      method: 'POST',
      json: { verificationRecordId: started.body!.verificationRecordId, connectorData: paramsOf(callback) },
    });
    expect(verified.status, JSON.stringify(verified.body)).to.equal(200);
    return verified.body!.verificationRecordId as string;
  }

  it('links behind the gate (User.Data.Updated), lists it, unlinks it (User.Data.Updated)', async () => {
    const { user, me } = await signedIn();
    const person = await f.upstreamUser();
    const record = await socialRecord(me, person);

    const ungated = await me('/api/my-account/identities', {
      method: 'POST',
      json: { newIdentifierVerificationRecordId: record },
    });
    expect(ungated.status).to.equal(401);
    expect(ungated.body!.code).to.equal('verification_record.permission_denied');
    const gate = await passwordRecord(me, PASSWORD);
    const linked = await me('/api/my-account/identities', {
      method: 'POST',
      json: { newIdentifierVerificationRecordId: record },
      verification: gate,
    });
    expect(linked.status, JSON.stringify(linked.body)).to.equal(204);
    const again = await me('/api/my-account/identities', {
      method: 'POST',
      json: { newIdentifierVerificationRecordId: record },
      verification: gate,
    });
    expect(again.status, 'the record was spent').to.equal(400);

    const mine = await me('/api/my-account');
    expect((mine.body!.identities as Record<string, { userId: string }>)['upstream-account']!.userId).to.equal(
      person.id,
    );
    const updated = await f.h.delivery(
      'User.Data.Updated',
      (payload) => payload.data.id === user.id && payload.method === 'POST',
    );
    expect(updated.path).to.equal('/my-account/identities');

    const unlinked = await me('/api/my-account/identities/upstream-account', { method: 'DELETE', verification: gate });
    expect(unlinked.status).to.equal(204);
    expect((await json(f.h.running.request(`/api/users/${user.id}`))).identities).to.deep.equal({});
    await f.h.delivery('User.Data.Updated', (payload) => payload.data.id === user.id && payload.method === 'DELETE');
    const missing = await me('/api/my-account/identities/upstream-account', { method: 'DELETE', verification: gate });
    expect(missing.status).to.equal(404);
    expect(missing.body!.code).to.equal('user.identity_not_exist');
  });

  it('refuses an identity another account holds (409), and everything when the account center turns social off (403)', async () => {
    const person = await f.upstreamUser();
    const holder = await signedIn();
    const gateOfHolder = await passwordRecord(holder.me, PASSWORD);
    const first = await holder.me('/api/my-account/identities', {
      method: 'POST',
      json: { newIdentifierVerificationRecordId: await socialRecord(holder.me, person) },
      verification: gateOfHolder,
    });
    expect(first.status).to.equal(204);

    const other = await signedIn();
    const gate = await passwordRecord(other.me, PASSWORD);
    const taken = await other.me('/api/my-account/identities', {
      method: 'POST',
      json: { newIdentifierVerificationRecordId: await socialRecord(other.me, person) },
      verification: gate,
    });
    expect(taken.status).to.equal(409);
    expect(taken.body!.code).to.equal('user.identity_already_in_use');

    const center = await f.h.running.request('/api/account-center', {
      method: 'PATCH',
      json: { fields: { social: 'ReadOnly', profile: 'Edit' } },
    });
    expect(center.status).to.equal(200);
    try {
      const readOnly = await other.me('/api/verifications/social', {
        method: 'POST',
        json: { connectorId, redirectUri: API_CALLBACK, state: 'account-state-2' },
      });
      expect(readOnly.status).to.equal(403);
      const unlink = await holder.me('/api/my-account/identities/upstream-account', {
        method: 'DELETE',
        verification: gateOfHolder,
      });
      expect(unlink.status).to.equal(403);
    } finally {
      await f.h.running.request('/api/account-center', {
        method: 'PATCH',
        json: {
          fields: {
            name: 'Edit',
            avatar: 'Edit',
            profile: 'Edit',
            email: 'Edit',
            phone: 'Edit',
            password: 'Edit',
            username: 'Edit',
            social: 'Edit',
            customData: 'Off',
            mfa: 'Edit',
          },
        },
      });
    }
    const unknown = await other.me('/api/verifications/social', {
      method: 'POST',
      json: { connectorId: 'nope', redirectUri: API_CALLBACK, state: 'account-state-3' },
    });
    expect(unknown.status).to.equal(404);
  });
});
