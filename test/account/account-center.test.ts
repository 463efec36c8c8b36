import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { startService, type RunningService } from '../support/service.ts';
import { createUser } from '../support/fixtures.ts';
import { DEFAULT_ACCOUNT_CENTER } from '../../lib/account/center.ts';
import { accountClient, asUser, passwordRecord, type AccountClient } from '../support/account.ts';

const PASSWORD = 'correct horse battery';

describe('account center: which fields users see and change', () => {
  let running: RunningService;
  let apps: AccountClient;

  before(async () => {
    running = await startService();
    apps = await accountClient(running);
  });
  afterEach(async () => {
    const reset = await running.request('/api/account-center', {
      method: 'PATCH',
      json: {
        enabled: true,
        fields: DEFAULT_ACCOUNT_CENTER.fields,
        deleteAccountUrl: null,
        webauthnRelatedOrigins: [],
      },
    });
    expect(reset.status).to.equal(200);
  });
  after(() => running.close());

  const center = async (json?: unknown) => {
    const res = await running.request('/api/account-center', json === undefined ? {} : { method: 'PATCH', json });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };

  async function member() {
    const username = `member_${randomBytes(4).toString('hex')}`;
    const user = await createUser(
      running,
      [],
      {
        username,
        primaryEmail: `${username}@example.com`,
        name: 'Member',
        customData: { plan: 'gold' },
        profile: { nickname: 'M' },
      },
      PASSWORD,
    );
    return { user, me: asUser(running, await apps.signIn(username, PASSWORD)) };
  }

  it('ships on, with every field editable but customData, which stays hidden', async () => {
    const answer = await center();
    expect(answer.status).to.equal(200);
    expect(answer.body).to.deep.equal({
      id: 'default',
      enabled: true,
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
        session: 'Edit',
      },
      deleteAccountUrl: null,
      webauthnRelatedOrigins: [],
    });
    const { me } = await member();
    const mine = (await me('/api/my-account')).body!;
    expect(mine).to.include({ name: 'Member', hasPassword: true });
    expect(mine).not.to.have.property('customData');
    const denied = await me('/api/my-account', { method: 'PATCH', json: { customData: { plan: 'platinum' } } });
    expect(denied.status).to.equal(403);
    expect(denied.body!.code).to.equal('account_center.field_not_editable');
  });

  it('hides Off fields, shows ReadOnly ones without letting them change, and lets Edit ones change', async () => {
    const updated = await center({ fields: { name: 'ReadOnly', customData: 'Edit', profile: 'Edit' } });
    expect(updated.status).to.equal(200);
    // Logto's PATCH: the fields given replace them all; the ones left out are Off.
    expect(updated.body.fields).to.include({
      name: 'ReadOnly',
      customData: 'Edit',
      profile: 'Edit',
      email: 'Off',
      password: 'Off',
      username: 'Off',
    });
    const { me, user } = await member();
    const mine = (await me('/api/my-account')).body!;
    expect(mine).to.include({ id: user.id, name: 'Member' });
    expect(mine.customData).to.deep.equal({ plan: 'gold' });
    for (const hidden of ['primaryEmail', 'username', 'hasPassword', 'avatar'])
      expect(mine, hidden).not.to.have.property(hidden);

    const rename = await me('/api/my-account', { method: 'PATCH', json: { name: 'Renamed' } });
    expect(rename.status).to.equal(403);
    expect(rename.body!.code).to.equal('account_center.field_not_editable');
    const identity = await passwordRecord(me, PASSWORD);
    for (const [method, path, json] of [
      ['POST', '/api/my-account/password', { password: 'a brand new passphrase' }],
      ['POST', '/api/my-account/primary-email', { email: 'x@example.com', newIdentifierVerificationRecordId: 'x' }],
      ['DELETE', '/api/my-account/primary-email', undefined],
    ] as const) {
      const answer = await me(path, { method, json, verification: identity });
      expect(answer.status, `${method} ${path}`).to.equal(403);
      expect(answer.body!.code).to.equal('account_center.field_not_editable');
    }
    const custom = await me('/api/my-account', { method: 'PATCH', json: { customData: { plan: 'platinum' } } });
    expect(custom.status).to.equal(200);
    expect(custom.body!.customData).to.deep.equal({ plan: 'platinum' });
    const profile = await me('/api/my-account/profile', { method: 'PATCH', json: { givenName: 'Mem' } });
    expect(profile.body).to.deep.equal({ nickname: 'M', givenName: 'Mem' });
  });

  it('refuses settings it does not know or cannot act on', async () => {
    for (const json of [
      { fields: { name: 'Maybe' } },
      { fields: { shoeSize: 'Edit' } },
      { enabled: 'yes' },
      { customCss: 'body {}' },
      { profileFields: [] },
    ]) {
      const answer = await center(json);
      expect(answer.status, JSON.stringify(json)).to.equal(400);
      expect(answer.body.code).to.equal('guard.invalid_input');
    }
    expect((await center()).body.enabled).to.equal(true);
  });

  it('keeps the delete-account link applications show: an http(s) URL, removed by an empty string or null', async () => {
    const url = 'https://example.com/account/delete?from=account-center';
    const set = await center({ deleteAccountUrl: url });
    expect(set.status).to.equal(200);
    expect(set.body.deleteAccountUrl).to.equal(url);
    expect((await center({ enabled: true })).body.deleteAccountUrl, 'kept by a PATCH without it').to.equal(url);
    expect((await center()).body.deleteAccountUrl).to.equal(url);

    for (const deleteAccountUrl of [
      'javascript:alert(1)',
      'ftp://example.com/delete',
      '/account/delete',
      'not a url',
      `https://example.com/${'a'.repeat(2030)}`,
      42,
    ]) {
      const refused = await center({ deleteAccountUrl });
      expect(refused.status, String(deleteAccountUrl).slice(0, 40)).to.equal(400);
      expect(refused.body.code).to.equal('guard.invalid_input');
    }
    expect((await center()).body.deleteAccountUrl).to.equal(url);

    expect((await center({ deleteAccountUrl: '' })).body.deleteAccountUrl).to.equal(null);
    await center({ deleteAccountUrl: 'http://127.0.0.1:8080/delete' });
    expect((await center({ deleteAccountUrl: null })).body.deleteAccountUrl).to.equal(null);
  });

  it('is management only: a user token is refused', async () => {
    const username = `member_${randomBytes(4).toString('hex')}`;
    await createUser(running, [], { username }, PASSWORD);
    const token = await apps.signIn(username, PASSWORD);
    const res = await running.request('/api/account-center', { method: 'PATCH', json: { enabled: false }, token });
    expect(res.status).to.equal(401);
    expect((await center()).body.enabled).to.equal(true);
  });
});

describe('Account API in the OpenAPI document, and the management reads beside it', () => {
  let running: RunningService;
  before(async () => {
    running = await startService();
  });
  after(() => running.close());

  it('documents the Account API under the user-token scheme, its events, and the account center under management auth', async () => {
    const doc = (await (await fetch(`${running.baseUrl}/api/swagger.json`)).json()) as Record<string, any>;
    expect(doc.components.securitySchemes.user.flows.authorizationCode.scopes).to.include.keys(
      'openid',
      'email',
      'custom_data',
      'identities',
    );
    expect(doc.paths['/api/my-account'].get.security).to.deep.equal([{ user: ['openid'] }]);
    expect(doc.paths['/api/my-account/primary-email'].post.security).to.deep.equal([{ user: ['email'] }]);
    expect(doc.paths['/api/my-account/primary-email'].post['x-webhook-events']).to.deep.equal(['User.Data.Updated']);
    expect(doc.paths['/api/verifications/verification-code'].post.requestBody).to.be.an('object');
    expect(doc.paths['/api/verifications/verification-code'].post.responses['201']).to.be.an('object');
    expect(doc.paths['/api/account-center'].patch.security).to.deep.equal([{ bearer: ['all'] }]);
    expect(doc.components.securitySchemes.user.flows.authorizationCode.scopes).to.include.keys(
      'urn:logto:scope:sessions',
    );
    expect(doc.paths['/api/my-account/sessions'].get.responses['200']).to.be.an('object');
    expect(doc.paths['/api/my-account/sessions/{sessionId}'].delete.responses['204']).to.be.an('object');
    expect(doc.paths['/api/my-account/sessions/{sessionId}'].delete.parameters).to.deep.include.members([
      {
        name: 'revokeGrantsTarget',
        in: 'query',
        required: false,
        schema: { type: 'string', enum: ['all', 'firstParty'] },
      },
    ]);
  });

  it('answers GET /api/users/:userId/has-password for a user with and without a password, 404 for none', async () => {
    const withPassword = await createUser(running, [], {}, PASSWORD);
    const without = await createUser(running);
    expect(await (await running.request(`/api/users/${withPassword.id}/has-password`)).json()).to.deep.equal({
      hasPassword: true,
    });
    expect(await (await running.request(`/api/users/${without.id}/has-password`)).json()).to.deep.equal({
      hasPassword: false,
    });
    const missing = await running.request('/api/users/nobody/has-password');
    expect(missing.status).to.equal(404);
    expect(((await missing.json()) as { code: string }).code).to.equal('entity.not_found');
  });
});
