import { expect } from 'chai';
import { startService, type RunningService } from '../support/service.ts';
import { createApplication, createResource, createUser, subjectToken, tokenRequest } from '../support/fixtures.ts';
import { installFakeClock, type FakeClock } from '../support/clock.ts';
import { newId } from '../../lib/ids.ts';
import { accountClient, asUser, passwordRecord, type AccountClient } from '../support/account.ts';

const PASSWORD = 'correct horse battery';
const GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
const AT = 'urn:ietf:params:oauth:token-type:access_token';

/** A service and a sign-in client of it, for the enclosing `describe` block. */
function useAccountApi(options: Parameters<typeof startService>[0] = {}): {
  running: RunningService;
  apps: AccountClient;
} {
  const account = {} as { running: RunningService; apps: AccountClient };
  before(async () => {
    account.running = await startService(options);
    account.apps = await accountClient(account.running);
  });
  after(() => account.running.close());
  return account;
}

describe('Account API: authentication and reading the account', () => {
  const account = useAccountApi();

  it('answers the signed-in user their own account with an access token from the authorization-code flow', async () => {
    const user = await createUser(
      account.running,
      [],
      { username: 'reader', primaryEmail: 'reader@example.com', name: 'Reader' },
      'correct horse battery',
    );
    const token = await account.apps.signIn('reader', 'correct horse battery');
    const me = await asUser(account.running, token)('/api/my-account');
    expect(me.status).to.equal(200);
    expect(me.body).to.include({
      id: user.id,
      username: 'reader',
      primaryEmail: 'reader@example.com',
      name: 'Reader',
      hasPassword: true,
    });
  });
});

describe('Account API: who may call it', () => {
  const account = useAccountApi();
  let user: { id: string };

  before(async () => {
    user = await createUser(
      account.running,
      [],
      { username: 'holder', primaryEmail: 'holder@example.com' },
      'correct horse battery',
    );
  });

  const call = async (authorization: string | undefined) => {
    const res = await fetch(`${account.running.baseUrl}/api/my-account`, {
      headers: authorization ? { authorization } : {},
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  it('refuses requests without a token, with a malformed or unknown one, and with a management token (401 auth.unauthorized)', async () => {
    for (const header of [
      undefined,
      'Bearer',
      'Basic abc',
      'Bearer not-a-token',
      `Bearer ${'x'.repeat(5000)}`,
      `Bearer ${await account.running.adminToken()}`,
    ]) {
      const answer = await call(header);
      expect(answer.status, String(header).slice(0, 30)).to.equal(401);
      expect(answer.body.code).to.equal('auth.unauthorized');
    }
  });

  it('refuses a token of a suspended user, and of a deleted one', async () => {
    const token = await account.apps.signIn('holder', 'correct horse battery');
    expect((await call(`Bearer ${token}`)).status).to.equal(200);
    const suspend = await account.running.request(`/api/users/${user.id}/is-suspended`, {
      method: 'PATCH',
      json: { isSuspended: true },
    });
    expect(suspend.status).to.equal(200);
    expect(await call(`Bearer ${token}`)).to.deep.include({ status: 401 });
    await account.running.request(`/api/users/${user.id}/is-suspended`, {
      method: 'PATCH',
      json: { isSuspended: false },
    });
    const again = await account.apps.signIn('holder', 'correct horse battery');
    expect((await call(`Bearer ${again}`)).status).to.equal(200);
    expect((await account.running.request(`/api/users/${user.id}`, { method: 'DELETE' })).status).to.equal(204);
    expect((await call(`Bearer ${again}`)).body.code).to.equal('auth.unauthorized');
  });

  it('refuses every route while the account center is disabled (403 account_center.not_enabled), and serves again once enabled', async () => {
    const someone = await createUser(account.running, [], { username: 'switcher' }, 'correct horse battery');
    const token = await account.apps.signIn('switcher', 'correct horse battery');
    const off = await account.running.request('/api/account-center', { method: 'PATCH', json: { enabled: false } });
    expect(off.status).to.equal(200);
    expect(await off.json()).to.include({ enabled: false });
    const me = asUser(account.running, token);
    for (const [method, path, json] of [
      ['GET', '/api/my-account', undefined],
      ['PATCH', '/api/my-account', { name: 'x' }],
      ['POST', '/api/verifications/password', { password: 'correct horse battery' }],
    ] as const) {
      const answer = await me(path, { method, json });
      expect(answer.status, `${method} ${path}`).to.equal(403);
      expect(answer.body!.code).to.equal('account_center.not_enabled');
    }
    await account.running.request('/api/account-center', { method: 'PATCH', json: { enabled: true } });
    expect((await me('/api/my-account')).body).to.include({ id: someone.id });
  });
});

describe('Account API: tokens other than the user’s own sign-in', () => {
  const account = useAccountApi({ env: { REDIS_URL: undefined } });
  let clock: FakeClock | undefined;
  afterEach(() => {
    clock?.uninstall();
    clock = undefined;
  });

  async function member() {
    const username = `member_${newId(8)}`;
    const user = await createUser(account.running, [], { username, primaryEmail: `${username}@example.com` }, PASSWORD);
    return { user, username };
  }

  it('lets an impersonation token read the account but change nothing, verify nothing', async () => {
    const { user } = await member();
    const app = await createApplication(account.running, {
      type: 'Traditional',
      customClientMetadata: { allowTokenExchange: true },
    });
    const exchanged = await tokenRequest(
      account.running,
      {
        grant_type: GRANT,
        subject_token_type: AT,
        subject_token: await subjectToken(account.running, user.id),
        scope: 'openid profile email',
      },
      app,
    );
    expect(exchanged.status, JSON.stringify(exchanged.body)).to.equal(200);
    const me = asUser(account.running, exchanged.body.access_token as string);
    expect((await me('/api/my-account')).body).to.include({ id: user.id, primaryEmail: user.primaryEmail });
    for (const [method, path, json] of [
      ['PATCH', '/api/my-account', { name: 'Hijacked' }],
      ['PATCH', '/api/my-account/profile', { nickname: 'x' }],
      ['POST', '/api/my-account/password', { password: 'a brand new passphrase' }],
      [
        'POST',
        '/api/my-account/primary-email',
        { email: 'attacker@example.com', newIdentifierVerificationRecordId: 'x' },
      ],
      ['DELETE', '/api/my-account/primary-email', undefined],
      ['POST', '/api/verifications/password', { password: PASSWORD }],
      [
        'POST',
        '/api/verifications/verification-code',
        { identifier: { type: 'email', value: 'attacker@example.com' } },
      ],
    ] as const) {
      const answer = await me(path, { method, json });
      expect(answer.status, `${method} ${path}`).to.equal(403);
      expect(answer.body!.code).to.equal('auth.impersonation_not_allowed');
    }
    expect(await (await account.running.request(`/api/users/${user.id}`)).json()).to.include({
      name: 'Test User',
      primaryEmail: user.primaryEmail,
    });
  });

  it('refuses a JWT access token for an API resource, a revoked token and an expired one', async () => {
    const { username } = await member();
    await createResource(account.running, 'https://notes.example.com', ['notes:read']);
    const jwt = await account.apps.signIn(username, PASSWORD, 'openid profile', {
      resource: 'https://notes.example.com',
    });
    expect(jwt.split('.')).to.have.length(3);
    expect((await asUser(account.running, jwt)('/api/my-account')).status).to.equal(401);

    const revoked = await account.apps.signIn(username, PASSWORD);
    expect((await asUser(account.running, revoked)('/api/my-account')).status).to.equal(200);
    await account.apps.revoke(revoked);
    expect((await asUser(account.running, revoked)('/api/my-account')).body!.code).to.equal('auth.unauthorized');

    const expiring = await account.apps.signIn(username, PASSWORD);
    clock = installFakeClock();
    clock.advance(3600_000 + 1000);
    expect((await asUser(account.running, expiring)('/api/my-account')).status).to.equal(401);
  });

  it('answers only the fields the token’s scopes grant, and refuses changes outside them (403 auth.forbidden)', async () => {
    const { username, user } = await member();
    const bare = asUser(account.running, await account.apps.signIn(username, PASSWORD, 'openid'));
    expect((await bare('/api/my-account')).body).to.deep.equal({ id: user.id });
    const rename = await bare('/api/my-account', { method: 'PATCH', json: { name: 'x' } });
    expect(rename.status).to.equal(403);
    expect(rename.body).to.include({ code: 'auth.forbidden' });

    const profileOnly = asUser(account.running, await account.apps.signIn(username, PASSWORD, 'openid profile'));
    const mine = (await profileOnly('/api/my-account')).body!;
    expect(mine).to.include({ username });
    expect(mine).not.to.have.property('primaryEmail');
    const email = await profileOnly('/api/my-account/primary-email', { method: 'DELETE' });
    expect(email.status).to.equal(403);
    expect(email.body!.code).to.equal('auth.forbidden');
    const noOpenid = await asUser(
      account.running,
      await account.apps.signIn(username, PASSWORD, 'profile'),
    )('/api/my-account');
    expect(noOpenid.status).to.equal(403);
    expect(noOpenid.body).to.deep.include({ code: 'auth.forbidden', data: { requiredScope: 'openid' } });
  });
});

describe('Account API: password, username and identifier rules', () => {
  const account = useAccountApi();

  async function member(fields: Record<string, unknown> = {}, password = PASSWORD) {
    const username = `member_${newId(8)}`;
    const user = await createUser(account.running, [], { username, ...fields }, password);
    return { user, username };
  }

  it('changes the password behind the gate under the password policy; the new one signs in, the old one no longer', async () => {
    const { username, user } = await member();
    const me = asUser(account.running, await account.apps.signIn(username, PASSWORD));
    const identity = await passwordRecord(me, PASSWORD);
    const weak = await me('/api/my-account/password', {
      method: 'POST',
      verification: identity,
      json: { password: 'short' },
    });
    expect(weak.status).to.equal(422);
    expect(weak.body!.code).to.equal('password.rejected');
    const changed = await me('/api/my-account/password', {
      method: 'POST',
      verification: identity,
      json: { password: 'a brand new passphrase' },
    });
    expect(changed.status).to.equal(204);
    await account.apps.signIn(username, 'a brand new passphrase');
    let refused = false;
    await account.apps.signIn(username, PASSWORD).catch(() => {
      refused = true;
    });
    expect(refused).to.equal(true);
    const hasPassword = await account.running.request(`/api/users/${user.id}/has-password`);
    expect(await hasPassword.json()).to.deep.equal({ hasPassword: true });
  });

  it('changes the username behind the gate, refuses a taken one (409) and removing the last identifier (422)', async () => {
    const { username, user } = await member();
    const other = await member();
    const me = asUser(account.running, await account.apps.signIn(username, PASSWORD));
    const ungated = await me('/api/my-account', { method: 'PATCH', json: { username: `renamed_${newId(6)}` } });
    expect(ungated.status).to.equal(401);
    expect(ungated.body!.code).to.equal('verification_record.permission_denied');
    const identity = await passwordRecord(me, PASSWORD);
    const taken = await me('/api/my-account', {
      method: 'PATCH',
      verification: identity,
      json: { username: other.username },
    });
    expect(taken.status).to.equal(409);
    expect(taken.body!.code).to.equal('user.username_already_in_use');
    const last = await me('/api/my-account', { method: 'PATCH', verification: identity, json: { username: null } });
    expect(last.status).to.equal(422);
    expect(last.body!.code).to.equal('user.last_sign_in_method_required');
    const renamed = `renamed_${newId(6)}`;
    const ok = await me('/api/my-account', {
      method: 'PATCH',
      verification: identity,
      json: { username: renamed, name: 'New Name' },
    });
    expect(ok.status).to.equal(200);
    expect(ok.body).to.include({ id: user.id, username: renamed, name: 'New Name' });
  });

  it('keeps the email when sign-up requires it (422 user.email_required)', async () => {
    const { username } = await member({ primaryEmail: `keep_${newId(6)}@example.com` });
    const me = asUser(account.running, await account.apps.signIn(username, PASSWORD));
    const identity = await passwordRecord(me, PASSWORD);
    const settings = await account.running.request('/api/sign-in-exp', {
      method: 'PATCH',
      json: {
        signIn: {
          methods: [
            { identifier: 'username', password: true, verificationCode: false, isPasswordPrimary: true },
            { identifier: 'email', password: true, verificationCode: false, isPasswordPrimary: true },
          ],
        },
        signUp: { identifiers: ['email'], password: true, verify: true },
      },
    });
    expect(settings.status, await settings.clone().text()).to.equal(200);
    const answer = await me('/api/my-account/primary-email', { method: 'DELETE', verification: identity });
    expect(answer.status).to.equal(422);
    expect(answer.body!.code).to.equal('user.email_required');
  });
});
