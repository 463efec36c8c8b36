import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { accountClient, asUser, passwordRecord, type AccountClient } from '../support/account.ts';
import { createUser } from '../support/fixtures.ts';
import { startService, type RunningService } from '../support/service.ts';

const REDIS_URL = process.env.TEST_REDIS_URL ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const PASSWORD = 'Safeguard-Pass-31';
const CONCURRENT = 100;

/**
 * What a signed-in user (or whoever holds their session) cannot do to the account through the Account API: drop the
 * last second factor where one is mandatory, keep other sessions alive past a password change, or set a picture
 * that is a script.
 */
for (const backend of ['embedded', 'redis'] as const) {
  describe(`Account API safeguards (${backend})`, () => {
    let running: RunningService;
    let apps: AccountClient;

    before(async () => {
      running = await startService({ env: { REDIS_URL: backend === 'redis' ? REDIS_URL : undefined } });
      expect(running.service.core.kv.kind).to.equal(backend === 'redis' ? 'redis' : 'sqlite');
      apps = await accountClient(running);
    });
    afterEach(async () => {
      await running.request('/api/sign-in-exp', {
        method: 'PATCH',
        json: { mfa: { factors: [], policy: 'UserControlled' } },
      });
    });
    after(() => running.close());

    async function signedIn() {
      const user = await createUser(running, [], { username: `safe_${randomBytes(4).toString('hex')}` }, PASSWORD);
      const token = await apps.signIn(user.username!, PASSWORD);
      return { user, token, me: asUser(running, token) };
    }

    async function mandatoryTotp() {
      const res = await running.request('/api/sign-in-exp', {
        method: 'PATCH',
        json: { mfa: { factors: ['Totp', 'WebAuthn', 'BackupCode'], policy: 'Mandatory' } },
      });
      expect(res.status, await res.clone().text()).to.equal(200);
    }

    /** A passkey on the account, as a registration would have stored it. */
    async function passkeyOf(userId: string): Promise<string> {
      const id = `pk${randomBytes(6).toString('hex')}`;
      await running.service.records.mfaVerifications.insert({
        id,
        userId,
        type: 'WebAuthn',
        createdAt: Date.now(),
        lastUsedAt: null,
        credentialId: randomBytes(16).toString('base64url'),
        publicKey: randomBytes(32).toString('base64url'),
        counter: 0,
        transports: ['internal'],
        name: null,
        agent: null,
      });
      return id;
    }

    const factorsOf = async (userId: string) =>
      (await (await running.request(`/api/users/${userId}/mfa-verifications`)).json()) as Array<{
        id: string;
        type: string;
      }>;

    it('keeps the only authenticator app under the Mandatory policy (422 session.mfa.mfa_policy_not_user_controlled)', async () => {
      const { user, me } = await signedIn();
      await mandatoryTotp();
      const enrolled = await running.request(`/api/users/${user.id}/mfa-verifications`, {
        method: 'POST',
        json: { type: 'Totp' },
      });
      expect(enrolled.status).to.equal(201);
      const codes = await running.request(`/api/users/${user.id}/mfa-verifications`, {
        method: 'POST',
        json: { type: 'BackupCode' },
      });
      expect(codes.status).to.equal(201);
      const [totp, backup] = await factorsOf(user.id);
      const verification = await passwordRecord(me, PASSWORD);
      const refused = await me(`/api/my-account/mfa-verifications/${totp!.id}`, { method: 'DELETE', verification });
      expect(refused.status, JSON.stringify(refused.body)).to.equal(422);
      expect(refused.body!.code).to.equal('session.mfa.mfa_policy_not_user_controlled');
      expect(
        (await me(`/api/my-account/mfa-verifications/${backup!.id}`, { method: 'DELETE', verification })).status,
        'backup codes may go',
      ).to.equal(204);
      expect((await factorsOf(user.id)).map((factor) => factor.id)).to.deep.equal([totp!.id]);

      // Control: with another factor held, the app may go; without the Mandatory policy, the last one may too.
      const passkey = await passkeyOf(user.id);
      expect(
        (await me(`/api/my-account/mfa-verifications/${totp!.id}`, { method: 'DELETE', verification })).status,
      ).to.equal(204);
      await running.request('/api/sign-in-exp', {
        method: 'PATCH',
        json: { mfa: { factors: ['Totp', 'WebAuthn'], policy: 'UserControlled' } },
      });
      expect(
        (await me(`/api/my-account/mfa-verifications/${passkey}`, { method: 'DELETE', verification })).status,
      ).to.equal(204);
    });

    it(`keeps a factor when ${CONCURRENT} concurrent removals race for the last three`, async () => {
      const { user, me } = await signedIn();
      await mandatoryTotp();
      await running.request(`/api/users/${user.id}/mfa-verifications`, { method: 'POST', json: { type: 'Totp' } });
      await passkeyOf(user.id);
      await passkeyOf(user.id);
      const ids = (await factorsOf(user.id)).map((factor) => factor.id);
      expect(ids).to.have.length(3);
      const verification = await passwordRecord(me, PASSWORD);
      const answers = await Promise.all(
        Array.from({ length: CONCURRENT }, (_, nth) =>
          me(`/api/my-account/mfa-verifications/${ids[nth % 3]}`, { method: 'DELETE', verification }),
        ),
      );
      const statuses = answers.map((answer) => answer.status);
      expect(statuses.filter((status) => status >= 500)).to.deep.equal([]);
      expect(
        statuses.every((status) => [204, 404, 422].includes(status)),
        statuses.join(','),
      ).to.equal(true);
      expect((await factorsOf(user.id)).filter((factor) => factor.type !== 'BackupCode').length).to.be.at.least(1);
    });

    it('a password change ends every other session and its tokens; the device that made it stays signed in', async () => {
      const { user, me } = await signedIn();
      const other = await apps.signIn(user.username!, PASSWORD);
      const third = await apps.signIn(user.username!, PASSWORD);
      const sessions = () =>
        running.service.core.store.collection('oidc_Session').find({ 'payload.accountId': user.id });
      expect(await sessions()).to.have.length(3);
      expect((await asUser(running, other)('/api/my-account')).status).to.equal(200);

      const verification = await passwordRecord(me, PASSWORD);
      const changed = await me('/api/my-account/password', {
        method: 'POST',
        verification,
        json: { password: 'Brand-New-Pass-92' },
      });
      expect(changed.status, JSON.stringify(changed.body)).to.equal(204);
      for (const token of [other, third]) {
        const answer = await asUser(running, token)('/api/my-account');
        expect(answer.status).to.equal(401);
        expect(answer.body!.code).to.equal('auth.unauthorized');
        const userinfo = await fetch(`${running.baseUrl}/oidc/me`, { headers: { authorization: `Bearer ${token}` } });
        expect(userinfo.status, 'the token is gone for the userinfo endpoint too').to.equal(401);
      }
      expect((await me('/api/my-account')).status, 'the device that changed it').to.equal(200);
      expect(await sessions()).to.have.length(1);
      expect((await apps.signIn(user.username!, 'Brand-New-Pass-92')).length).to.be.greaterThan(0);
    });

    it('takes only http(s) pictures, in the management API and the Account API (400 guard.invalid_input)', async () => {
      const { user, me } = await signedIn();
      for (const avatar of [
        'javascript:alert(1)',
        'data:image/svg+xml,<svg onload=alert(1)>',
        'file:///etc/passwd',
        'vbscript:x',
      ]) {
        const created = await running.request('/api/users', {
          method: 'POST',
          json: { username: `pic_${randomBytes(3).toString('hex')}`, avatar },
        });
        expect(created.status, avatar).to.equal(400);
        expect(((await created.json()) as { code: string }).code).to.equal('guard.invalid_input');
        expect(
          (await running.request(`/api/users/${user.id}`, { method: 'PATCH', json: { avatar } })).status,
          avatar,
        ).to.equal(400);
        const own = await me('/api/my-account', { method: 'PATCH', json: { avatar } });
        expect(own.status, avatar).to.equal(400);
        expect(own.body!.code).to.equal('guard.invalid_input');
      }
      expect(
        (await me('/api/my-account', { method: 'PATCH', json: { avatar: 'https://pics.example/me.png' } })).status,
      ).to.equal(200);
      const stored = (await (await running.request(`/api/users/${user.id}`)).json()) as { avatar: string };
      expect(stored.avatar).to.equal('https://pics.example/me.png');
    });
  });
}
