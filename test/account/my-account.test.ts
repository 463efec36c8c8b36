import { expect } from 'chai';
import { startService, type RunningService } from '../support/service.ts';
import { createUser } from '../support/fixtures.ts';
import { accountClient, asUser, type AccountClient } from './support.ts';

describe('Account API: authentication and reading the account', () => {
  let running: RunningService;
  let apps: AccountClient;

  before(async () => {
    running = await startService();
    apps = await accountClient(running);
  });
  after(() => running.close());

  it('answers the signed-in user their own account with an access token from the authorization-code flow', async () => {
    const user = await createUser(running, [], { username: 'reader', primaryEmail: 'reader@example.com', name: 'Reader' }, 'correct horse battery');
    const token = await apps.signIn('reader', 'correct horse battery');
    const me = await asUser(running, token)('/api/my-account');
    expect(me.status).to.equal(200);
    expect(me.body).to.include({ id: user.id, username: 'reader', primaryEmail: 'reader@example.com', name: 'Reader', hasPassword: true });
  });
});

describe('Account API: who may call it', () => {
  let running: RunningService;
  let apps: AccountClient;
  let user: { id: string };

  before(async () => {
    running = await startService();
    apps = await accountClient(running);
    user = await createUser(running, [], { username: 'holder', primaryEmail: 'holder@example.com' }, 'correct horse battery');
  });
  after(() => running.close());

  const call = async (authorization: string | undefined) => {
    const res = await fetch(`${running.baseUrl}/api/my-account`, { headers: authorization ? { authorization } : {} });
    return { status: res.status, body: await res.json() as Record<string, unknown> };
  };

  it('refuses requests without a token, with a malformed or unknown one, and with a management token (401 auth.unauthorized)', async () => {
    for (const header of [undefined, 'Bearer', 'Basic abc', 'Bearer not-a-token', `Bearer ${'x'.repeat(5000)}`, `Bearer ${await running.adminToken()}`]) {
      const answer = await call(header);
      expect(answer.status, String(header).slice(0, 30)).to.equal(401);
      expect(answer.body.code).to.equal('auth.unauthorized');
    }
  });

  it('refuses a token of a suspended user, and of a deleted one', async () => {
    const token = await apps.signIn('holder', 'correct horse battery');
    expect((await call(`Bearer ${token}`)).status).to.equal(200);
    const suspend = await running.request(`/api/users/${user.id}/is-suspended`, { method: 'PATCH', json: { isSuspended: true } });
    expect(suspend.status).to.equal(200);
    expect(await call(`Bearer ${token}`)).to.deep.include({ status: 401 });
    await running.request(`/api/users/${user.id}/is-suspended`, { method: 'PATCH', json: { isSuspended: false } });
    const again = await apps.signIn('holder', 'correct horse battery');
    expect((await call(`Bearer ${again}`)).status).to.equal(200);
    expect((await running.request(`/api/users/${user.id}`, { method: 'DELETE' })).status).to.equal(204);
    expect((await call(`Bearer ${again}`)).body.code).to.equal('auth.unauthorized');
  });

  it('refuses every route while the account center is disabled (403 account_center.not_enabled), and serves again once enabled', async () => {
    const someone = await createUser(running, [], { username: 'switcher' }, 'correct horse battery');
    const token = await apps.signIn('switcher', 'correct horse battery');
    const off = await running.request('/api/account-center', { method: 'PATCH', json: { enabled: false } });
    expect(off.status).to.equal(200);
    expect(await off.json()).to.include({ enabled: false });
    const me = asUser(running, token);
    for (const [method, path, json] of [
      ['GET', '/api/my-account', undefined], ['PATCH', '/api/my-account', { name: 'x' }],
      ['POST', '/api/verifications/password', { password: 'correct horse battery' }],
    ] as const) {
      const answer = await me(path, { method, json });
      expect(answer.status, `${method} ${path}`).to.equal(403);
      expect(answer.body!.code).to.equal('account_center.not_enabled');
    }
    await running.request('/api/account-center', { method: 'PATCH', json: { enabled: true } });
    expect((await me('/api/my-account')).body).to.include({ id: someone.id });
  });
});
