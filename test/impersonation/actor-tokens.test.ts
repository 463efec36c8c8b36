import { expect } from 'chai';
import { decodeJwt } from 'jose';
import { startService, type RunningService } from '../support/service.ts';
import { accountClient } from '../support/account.ts';
import {
  createApplication,
  createResource,
  createRole,
  createUser,
  oauthError,
  subjectToken,
  tokenRequest,
} from '../support/fixtures.ts';
import { newId } from '../../lib/ids.ts';

const GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
const AT = 'urn:ietf:params:oauth:token-type:access_token';
const INDICATOR = 'https://actors.example.com';
const PASSWORD = 'actor sign-in passphrase 31';
const RESERVED = ['openid', 'profile', 'email', 'phone', 'address', 'offline_access'];

describe('actor tokens', () => {
  let running: RunningService;
  let app: { id: string; secret?: string };
  let resourceId: string;
  let roleId: string;
  let alice: { id: string };

  const exchange = (params: Record<string, string | undefined>) =>
    tokenRequest(running, { grant_type: GRANT, subject_token_type: AT, ...params }, app);

  /** An opaque (userinfo) access token of the user, with `openid`: the kind of token an actor presents. */
  /** The user's own access token from their own sign-in with `openid` (the userinfo token, opaque). */
  async function opaqueToken(user: { username: string | null }): Promise<string> {
    return (await accountClient(running)).signIn(user.username!, PASSWORD, 'openid');
  }

  /** The user's own JWT access token for the API whose `scope` says "openid" — the API's scope of that name. */
  async function jwtToken(user: { username: string | null }): Promise<string> {
    const token = await (await accountClient(running)).signIn(user.username!, PASSWORD, 'openid read', {
      resource: INDICATOR,
    });
    expect(String(decodeJwt(token).scope).split(' ').sort()).to.deep.equal(['openid', 'read']);
    return token;
  }

  async function actAs(actorToken: string) {
    const token = await subjectToken(running, alice.id);
    const result = await exchange({
      subject_token: token,
      resource: INDICATOR,
      actor_token: actorToken,
      actor_token_type: AT,
    });
    if (result.status !== 200) {
      expect(
        (await exchange({ subject_token: token, resource: INDICATOR })).status,
        'subject token not spent',
      ).to.equal(200);
    }
    return result;
  }

  before(async () => {
    running = await startService();
    const api = await createResource(running, INDICATOR, ['read']);
    resourceId = api.resource.id;
    // A scope named openid, as could be created before OIDC names were reserved.
    const legacy = await running.service.records.resources.insertScope({
      id: newId(),
      resourceId,
      name: 'openid',
      description: null,
      createdAt: Date.now(),
    });
    roleId = (await createRole(running, [api.scopes.read!.id, legacy.id])).id;
    alice = await createUser(running);
    app = await createApplication(running, { type: 'Traditional', customClientMetadata: { allowTokenExchange: true } });
  });
  after(() => running.close());

  it('accepts an opaque token of an active user with openid', async () => {
    const bob = await createUser(running, [roleId], {}, PASSWORD);
    const { status, body } = await actAs(await opaqueToken(bob));
    expect(status, JSON.stringify(body)).to.equal(200);
    expect(decodeJwt(body.access_token as string).act).to.deep.equal({ sub: bob.id });
  });

  it('refuses a JWT whose openid is only an API scope of that name', async () => {
    const bob = await createUser(running, [roleId], {}, PASSWORD);
    const { status, body } = await actAs(await jwtToken(bob));
    expect(status).to.equal(400);
    expect(body.error).to.equal('invalid_request');
    expect(body.error_description).to.match(/actor_token.*openid/);
  });

  it('refuses the token of a suspended actor (JWT and opaque)', async () => {
    const bob = await createUser(running, [roleId], {}, PASSWORD);
    const jwt = await jwtToken(bob);
    const suspended = await running.request(`/api/users/${bob.id}/is-suspended`, {
      method: 'PATCH',
      json: { isSuspended: true },
    });
    expect(suspended.status).to.equal(200);
    const { status, body } = await actAs(jwt);
    expect(status).to.equal(400);
    expect(body).to.deep.equal(oauthError('invalid_request', 'invalid actor_token: its user is suspended'));

    // An opaque token that outlived the suspension (the flag is written before the tokens are revoked).
    const carol = await createUser(running, [], {}, PASSWORD);
    const opaque = await opaqueToken(carol);
    await running.service.records.users.update(carol.id, { isSuspended: true });
    const refused = await actAs(opaque);
    expect(refused.status).to.equal(400);
    expect(refused.body).to.deep.equal(oauthError('invalid_request', 'invalid actor_token: its user is suspended'));
  });

  it('refuses the token of a deleted actor (JWT and opaque)', async () => {
    const bob = await createUser(running, [roleId], {}, PASSWORD);
    const jwt = await jwtToken(bob);
    expect((await running.request(`/api/users/${bob.id}`, { method: 'DELETE' })).status).to.equal(204);
    const { status, body } = await actAs(jwt);
    expect(status).to.equal(400);
    expect(body).to.deep.equal(oauthError('invalid_request', 'invalid actor_token: its user no longer exists'));

    const carol = await createUser(running, [], {}, PASSWORD);
    const opaque = await opaqueToken(carol);
    await running.service.records.users.delete(carol.id);
    const refused = await actAs(opaque);
    expect(refused.status).to.equal(400);
    expect(refused.body).to.deep.equal(oauthError('invalid_request', 'invalid actor_token: its user no longer exists'));
  });

  it('refuses OIDC scope names for API scopes, at creation and on rename', async () => {
    for (const name of RESERVED) {
      const res = await running.request(`/api/resources/${resourceId}/scopes`, { method: 'POST', json: { name } });
      const body = (await res.json()) as { code: string; data: { issues: Array<{ path: string; message: string }> } };
      expect(res.status, name).to.equal(400);
      expect(body.code).to.equal('guard.invalid_input');
      expect(body.data.issues[0]).to.include({ path: 'body.name' });
      expect(body.data.issues[0]!.message).to.match(/reserved/);
    }
    const created = await running.request(`/api/resources/${resourceId}/scopes`, {
      method: 'POST',
      json: { name: 'openid:read' },
    });
    expect(created.status, 'a name that merely contains one is fine').to.equal(201);
    const { id } = (await created.json()) as { id: string };
    const renamed = await running.request(`/api/resources/${resourceId}/scopes/${id}`, {
      method: 'PATCH',
      json: { name: 'openid' },
    });
    expect(renamed.status).to.equal(400);
    expect(((await renamed.json()) as { code: string }).code).to.equal('guard.invalid_input');
    const scopes = (await (
      await running.request(`/api/resources/${resourceId}/scopes?search=%25openid%25`)
    ).json()) as Array<{ id: string; name: string }>;
    expect(scopes.find((scope) => scope.id === id)?.name).to.equal('openid:read');
  });
});
