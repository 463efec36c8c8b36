import { expect } from 'chai';
import { fixtures, ok, startHarness, unique, type Harness } from '../support/management/harness.ts';

describe('users management API', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  describe('creating and reading', () => {
    it('creates a user with Logto defaults, hashes the password with scrypt and never returns it', async () => {
      const username = unique('carol');
      const res = await h.api('POST', '/users', {
        username,
        primaryEmail: `${username}@example.com`,
        password: 'a long password',
      });
      expect(res.status).to.equal(201);
      expect(res.body).to.include({
        username,
        primaryPhone: null,
        isSuspended: false,
        hasPassword: true,
        applicationId: null,
      });
      expect(res.body).to.include.keys('customData', 'profile', 'identities', 'createdAt', 'updatedAt', 'lastSignInAt');
      expect(res.body).not.to.have.any.keys('password', 'passwordDigest');
      expect(JSON.stringify(res.body)).not.to.match(/scrypt|a long password/);
      const stored = await h.running.service.records.users.findWithSecrets({ id: res.body.id });
      expect(stored?.secrets.passwordDigest).to.match(/^scrypt\$32768\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);

      expect(
        (await h.api('POST', `/users/${res.body.id}/password/verify`, { password: 'a long password' })).status,
      ).to.equal(204);
      const wrong = await h.api('POST', `/users/${res.body.id}/password/verify`, { password: 'not the password' });
      expect(wrong.status).to.equal(422);
      expect(wrong.body.code).to.equal('session.invalid_credentials');
      expect((await h.api('GET', `/users/${res.body.id}/has-password`)).body).to.deep.equal({ hasPassword: true });
    });

    it('replaces the password so that only the new one verifies', async () => {
      const user = await fixtures(h).user({ password: 'the first password' });
      await ok(h.api('PATCH', `/users/${user.id}/password`, { password: 'the second password' }));
      expect(
        (await h.api('POST', `/users/${user.id}/password/verify`, { password: 'the first password' })).status,
      ).to.equal(422);
      expect(
        (await h.api('POST', `/users/${user.id}/password/verify`, { password: 'the second password' })).status,
      ).to.equal(204);
    });

    it('assigns default User roles on creation', async () => {
      const role = await fixtures(h).role({ isDefault: true });
      const user = await fixtures(h).user();
      const roles = await ok(h.api('GET', `/users/${user.id}/roles`));
      expect(roles.map((r: { id: string }) => r.id)).to.include(role.id);
      await ok(h.api('PATCH', `/roles/${role.id}`, { isDefault: false }));
    });

    it('lists with search and pagination, and a Total-Number header', async () => {
      const tag = unique('team').toLowerCase();
      for (const name of ['a', 'b', 'c']) await fixtures(h).user({ username: `${tag}_${name}` });
      const first = await h.api('GET', `/users?search=%25${tag}%25&page=1&page_size=2`);
      expect(first.status).to.equal(200);
      expect(first.headers.get('total-number')).to.equal('3');
      expect(first.body).to.have.length(2);
      const second = await h.api('GET', `/users?search=%25${tag.toUpperCase()}%25&page=2&page_size=2`);
      expect(second.body).to.have.length(1);
      const names = [...first.body, ...second.body].map((u: { username: string }) => u.username);
      expect(names).to.have.members([`${tag}_a`, `${tag}_b`, `${tag}_c`]);
      const regexLike = await h.api('GET', `/users?search=${encodeURIComponent('.*(')}`);
      expect(regexLike.status).to.equal(200);
      expect(regexLike.body).to.deep.equal([]);
    });

    it('answers 409 naming the identifier already in use, and frees identifiers set to null', async () => {
      const email = `${unique('dup')}@example.com`;
      const holder = await fixtures(h).user({ primaryEmail: email });
      const clash = await h.api('POST', '/users', { primaryEmail: email });
      expect(clash.status).to.equal(409);
      expect(clash.body).to.deep.include({
        code: 'user.email_already_in_use',
        data: { entity: 'user', field: 'primaryEmail' },
      });
      const cleared = await ok(h.api('PATCH', `/users/${holder.id}`, { primaryEmail: null }));
      expect(cleared.primaryEmail).to.equal(null);
      expect((await h.api('POST', '/users', { primaryEmail: email })).status).to.equal(201);
    });

    it('merges custom data and profile on their own routes, and replaces them on PATCH /users/:userId', async () => {
      const user = await fixtures(h).user({ customData: { a: 1, b: 2 }, profile: { givenName: 'Ada' } });
      expect(await ok(h.api('PATCH', `/users/${user.id}/custom-data`, { customData: { b: 3, c: 4 } }))).to.deep.equal({
        a: 1,
        b: 3,
        c: 4,
      });
      expect(await ok(h.api('PATCH', `/users/${user.id}/profile`, { profile: { familyName: 'L' } }))).to.deep.equal({
        givenName: 'Ada',
        familyName: 'L',
      });
      const replaced = await ok(h.api('PATCH', `/users/${user.id}`, { customData: { only: true } }));
      expect(replaced.customData).to.deep.equal({ only: true });
      expect(replaced.profile).to.deep.equal({ givenName: 'Ada', familyName: 'L' });
    });
  });

  describe('suspension', () => {
    /** Real provider grant plus session and token documents, as node-oidc-provider stores them. */
    async function signedIn(userId: string) {
      const { provider, store } = h.running.service.core;
      const grant = new provider.Grant({ accountId: userId, clientId: h.running.service.adminClientId });
      const grantId = await grant.save();
      const expiresAt = new Date(Date.now() + 3_600_000);
      const session = `session-${unique('s')}`;
      await store
        .collection('oidc_Session')
        .insertOne({ _id: session, uid: session, payload: { accountId: userId, uid: session }, expiresAt });
      for (const model of ['AccessToken', 'RefreshToken', 'AuthorizationCode']) {
        const doc = { _id: `${model}-${grantId}`, grantId, payload: { accountId: userId, grantId }, expiresAt };
        await store.collection(`oidc_${model}`).insertOne(doc);
      }
      return { grantId, session };
    }

    async function remaining(userId: string, grantId: string): Promise<number> {
      const { store } = h.running.service.core;
      let count = 0;
      for (const model of ['Session', 'Grant'])
        count += await store.collection(`oidc_${model}`).countDocuments({ 'payload.accountId': userId });
      for (const model of ['AccessToken', 'RefreshToken', 'AuthorizationCode']) {
        count += await store.collection(`oidc_${model}`).countDocuments({ grantId });
      }
      return count;
    }

    it("ends the user's sessions, grants and tokens, and leaves other users' alone", async () => {
      const [user, bystander] = [await fixtures(h).user(), await fixtures(h).user()];
      const { grantId } = await signedIn(user.id);
      const other = await signedIn(bystander.id);
      expect(await remaining(user.id, grantId)).to.equal(5);

      const suspended = await ok(h.api('PATCH', `/users/${user.id}/is-suspended`, { isSuspended: true }));
      expect(suspended.isSuspended).to.equal(true);
      expect(await remaining(user.id, grantId)).to.equal(0);
      expect(await h.running.service.core.provider.Grant.find(grantId)).to.equal(undefined);
      expect(await remaining(bystander.id, other.grantId)).to.equal(5);
    });

    it('blocks impersonation while suspended: POST /api/subject-tokens answers 422', async () => {
      const user = await fixtures(h).user();
      expect((await h.api('POST', '/subject-tokens', { userId: user.id })).status).to.equal(201);
      await ok(h.api('PATCH', `/users/${user.id}/is-suspended`, { isSuspended: true }));
      const refused = await h.api('POST', '/subject-tokens', { userId: user.id });
      expect(refused.status).to.equal(422);
      expect(refused.body.code).to.equal('user.suspended');
      await ok(h.api('PATCH', `/users/${user.id}/is-suspended`, { isSuspended: false }));
      expect((await h.api('POST', '/subject-tokens', { userId: user.id })).status).to.equal(201);
    });
  });

  describe('deletion', () => {
    it("removes the user's roles, memberships and sessions, then answers 404", async () => {
      const role = await fixtures(h).role();
      const organization = await fixtures(h).organization();
      const user = await fixtures(h).member(organization.id);
      await ok(h.api('POST', `/users/${user.id}/roles`, { roleIds: [role.id] }));
      const grant = new h.running.service.core.provider.Grant({
        accountId: user.id,
        clientId: h.running.service.adminClientId,
      });
      const grantId = await grant.save();

      expect((await h.api('DELETE', `/users/${user.id}`)).status).to.equal(204);
      expect((await h.api('GET', `/users/${user.id}`)).status).to.equal(404);
      expect(await h.running.service.core.provider.Grant.find(grantId)).to.equal(undefined);
      expect(await ok(h.api('GET', `/organizations/${organization.id}/users`))).to.deep.equal([]);
      expect(await h.running.service.records.roles.userIdsOfRole(role.id)).to.deep.equal([]);
      expect((await h.api('DELETE', `/users/${user.id}`)).status).to.equal(404);
    });
  });

  describe('roles', () => {
    it('assigns, lists, replaces and removes User roles without publishing events', async () => {
      const user = await fixtures(h).user();
      const [a, b, c] = [await fixtures(h).role(), await fixtures(h).role(), await fixtures(h).role()];
      h.clear();
      expect((await h.api('POST', `/users/${user.id}/roles`, { roleIds: [a.id, b.id, a.id] })).status).to.equal(201);
      const listed = await h.api('GET', `/users/${user.id}/roles?page_size=1`);
      expect(listed.headers.get('total-number')).to.equal('2');
      expect(listed.body).to.have.length(1);
      expect(await ok(h.api('PUT', `/users/${user.id}/roles`, { roleIds: [b.id, c.id] }))).to.deep.equal({
        roleIds: [b.id, c.id],
      });
      const ids = (await ok(h.api('GET', `/users/${user.id}/roles`))).map((r: { id: string }) => r.id);
      expect(ids).to.have.members([b.id, c.id]);
      expect((await h.api('DELETE', `/users/${user.id}/roles/${b.id}`)).status).to.equal(204);
      expect((await h.api('DELETE', `/users/${user.id}/roles/${b.id}`)).status).to.equal(404);
      expect(h.events).to.deep.equal([]);
    });

    it('refuses machine-to-machine roles (422) and unknown roles or users (404)', async () => {
      const user = await fixtures(h).user();
      const m2m = await fixtures(h).role({ type: 'MachineToMachine' });
      const mismatch = await h.api('POST', `/users/${user.id}/roles`, { roleIds: [m2m.id] });
      expect(mismatch.status).to.equal(422);
      expect(mismatch.body.code).to.equal('user.invalid_role_type');
      expect((await h.api('PUT', `/users/${user.id}/roles`, { roleIds: ['no-such-role'] })).status).to.equal(404);
      expect((await h.api('GET', '/users/no-such-user/roles')).status).to.equal(404);
    });
  });
});
