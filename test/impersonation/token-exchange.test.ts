import { expect } from 'chai';
import * as client from 'openid-client';
import { createRemoteJWKSet, jwtVerify, decodeJwt } from 'jose';
import { startService, type RunningService } from '../support/service.ts';
import {
  createApplication,
  createResource,
  createRole,
  createUser,
  oauthError,
  subjectToken,
  tokenRequest,
  type ApiFixture,
} from '../support/fixtures.ts';
import type { CustomizerInput } from '../../lib/jwt-customizer/claims.ts';
import { installFakeClock } from '../support/clock.ts';
import { eventually } from '../support/wait.ts';
import { GRANT, AT } from '../support/token-exchange.ts';
import { accountClient } from '../support/account.ts';

const INDICATOR = 'https://api.example.com';
const BOB_PASSWORD = 'support agent passphrase 42';

/** Tickets the customizer has refused once; a second exchange of the same token goes through. */
const refusedOnce = new Set<unknown>();

/** A customizer driven by the subject token's context, so one instance can show every behaviour. */
async function customizer({ token, context, environmentVariables, api }: CustomizerInput) {
  const grant = context.grant as { type: string; subjectTokenContext?: Record<string, unknown> };
  const mode = grant.subjectTokenContext?.mode;
  if (mode === 'deny-once' && !refusedOnce.has(grant.subjectTokenContext?.ticket)) {
    refusedOnce.add(grant.subjectTokenContext?.ticket);
    api.denyAccess('impersonation refused by policy');
  }
  if (mode === 'throw') throw new Error('customizer exploded');
  const user = context.user as { roles?: Array<{ name: string }> } | undefined;
  return {
    grant_type_seen: grant.type,
    ticket: grant.subjectTokenContext?.ticket,
    role_names: user?.roles?.map((role) => role.name),
    env_region: environmentVariables.REGION,
    token_client: token.clientId,
    // Reserved claims a customizer must never be able to set:
    sub: 'forged',
    aud: 'forged',
    iss: 'forged',
    scope: 'admin',
    act: { sub: 'forged' },
    client_id: 'forged',
  };
}

describe('token exchange (RFC 8693 impersonation)', () => {
  let running: RunningService;
  let api: ApiFixture;
  let alice: { id: string };
  let bob: { id: string; username: string | null };
  /** Bob's own access token, from his own sign-in (authorization code flow, `openid`): an actor token. */
  let bobToken: string;
  let traditional: { id: string; secret?: string };
  let spa: { id: string };
  let disabled: { id: string; secret?: string };

  before(async () => {
    running = await startService({
      jwtCustomizer: { getCustomJwtClaims: customizer as never, environmentVariables: { REGION: 'eu' } },
    });
    api = await createResource(running, INDICATOR, ['read', 'write', 'admin']);
    const reader = await createRole(running, [api.scopes.read!.id, api.scopes.write!.id]);
    alice = await createUser(running, [reader.id]);
    bob = await createUser(running, [], {}, BOB_PASSWORD);
    traditional = await createApplication(running, {
      type: 'Traditional',
      customClientMetadata: { allowTokenExchange: true },
    });
    spa = await createApplication(running, { type: 'SPA', customClientMetadata: { allowTokenExchange: true } });
    disabled = await createApplication(running, { type: 'Traditional' });
    bobToken = await (await accountClient(running)).signIn(bob.username!, BOB_PASSWORD, 'openid');
  });
  after(() => running.close());

  const exchange = (params: Record<string, string | undefined>, app: { id: string; secret?: string } = traditional) =>
    tokenRequest(running, { grant_type: GRANT, subject_token_type: AT, ...params }, app);

  it('runs the whole flow with openid-client and issues a verifiable JWT for the impersonated user', async () => {
    // Bob, the support agent, signed in himself: his access token with `openid` makes him the actor.
    const token = await subjectToken(running, alice.id, { ticket: 'SUP-42' });
    const config = await client.discovery(
      new URL(`${running.baseUrl}/oidc`),
      traditional.id,
      traditional.secret,
      undefined,
      {
        execute: [client.allowInsecureRequests],
      },
    );
    const response = await client.genericGrantRequest(config, GRANT, {
      subject_token: token,
      subject_token_type: AT,
      resource: INDICATOR,
      scope: 'read admin',
      actor_token: bobToken,
      actor_token_type: AT,
    });
    expect(response.token_type.toLowerCase()).to.equal('bearer');
    expect(response.refresh_token).to.equal(undefined);
    expect(response.id_token).to.equal(undefined);
    expect((response as unknown as Record<string, unknown>).issued_token_type).to.equal(AT);
    expect(response.scope).to.equal('read');
    expect(response.expires_in).to.be.a('number');

    const jwks = createRemoteJWKSet(new URL(`${running.baseUrl}/oidc/jwks`));
    const { payload, protectedHeader } = await jwtVerify(response.access_token, jwks, {
      issuer: `${running.baseUrl}/oidc`,
      audience: INDICATOR,
    });
    expect(protectedHeader.typ).to.equal('at+jwt');
    expect(protectedHeader.alg).to.equal('ES256');
    expect(payload.sub).to.equal(alice.id);
    expect(payload.aud).to.equal(INDICATOR);
    expect(payload.scope).to.equal('read');
    expect(payload.client_id).to.equal(traditional.id);
    expect(payload.exp! - payload.iat!).to.be.greaterThan(0);
    expect(payload.jti).to.be.a('string');
    expect(payload.act).to.deep.equal({ sub: bob.id });
    expect(payload.grant_type_seen).to.equal(GRANT);
    expect(payload.ticket).to.equal('SUP-42');
    expect(payload.env_region).to.equal('eu');
    expect(payload.token_client).to.equal(traditional.id);
    expect(payload.role_names).to.have.length(1);
  });

  it('rule 1: refuses applications that did not enable token exchange, with the exact error', async () => {
    const token = await subjectToken(running, alice.id);
    const { status, body } = await exchange({ subject_token: token, resource: INDICATOR }, disabled);
    expect(status).to.equal(400);
    expect(body).to.deep.equal(oauthError('unauthorized_client', 'token exchange is not allowed for this application'));
    expect((await exchange({ subject_token: token, resource: INDICATOR })).status, 'token still usable').to.equal(200);
  });

  it('rule 1: an application that turns token exchange off is refused from its next exchange on', async () => {
    const app = await createApplication(running, {
      type: 'Traditional',
      customClientMetadata: { allowTokenExchange: true },
    });
    expect(
      (await exchange({ subject_token: await subjectToken(running, alice.id), resource: INDICATOR }, app)).status,
    ).to.equal(200);
    const off = await running.request(`/api/applications/${app.id}`, {
      method: 'PATCH',
      json: { customClientMetadata: { allowTokenExchange: false } },
    });
    expect(off.status).to.equal(200);
    const { status, body } = await exchange(
      { subject_token: await subjectToken(running, alice.id), resource: INDICATOR },
      app,
    );
    expect([status, body.error]).to.deep.equal([400, 'unauthorized_client']);
  });

  it('rule 1: third-party applications can never enable it', async () => {
    const res = await running.request('/api/applications', {
      method: 'POST',
      json: {
        name: 'third',
        type: 'Traditional',
        isThirdParty: true,
        customClientMetadata: { allowTokenExchange: true },
      },
    });
    expect(res.status).to.equal(422);
  });

  it('rule 2: names the missing or unsupported parameter', async () => {
    const cases: Array<[Record<string, string | undefined>, RegExp]> = [
      [{ subject_token: undefined }, /subject_token/],
      [{ subject_token: 'x', subject_token_type: undefined }, /subject_token_type/],
      [{ subject_token: 'x', subject_token_type: 'urn:ietf:params:oauth:token-type:id_token' }, /subject_token_type/],
      [{ subject_token: 'x', actor_token: 'y' }, /actor_token_type/],
      [{ subject_token: 'x', actor_token: 'y', actor_token_type: 'urn:x' }, /actor_token_type/],
      [
        { subject_token: 'x', requested_token_type: 'urn:ietf:params:oauth:token-type:refresh_token' },
        /requested_token_type/,
      ],
    ];
    for (const [params, description] of cases) {
      const { status, body } = await exchange(params);
      expect(status, JSON.stringify(params)).to.equal(400);
      expect(body.error).to.equal('invalid_request');
      expect(body.error_description).to.match(description);
    }
  });

  it('rule 3: unknown, used and expired subject tokens are invalid_request', async () => {
    const unknown = await exchange({ subject_token: 'sub_tk_unknown', resource: INDICATOR });
    expect(unknown.body).to.include({ error: 'invalid_request' });
    expect(unknown.body.error_description).to.match(/subject_token is invalid, expired or already used/);

    const token = await subjectToken(running, alice.id);
    expect((await exchange({ subject_token: token, resource: INDICATOR })).status).to.equal(200);
    const reused = await exchange({ subject_token: token, resource: INDICATOR });
    expect(reused.status).to.equal(400);
    expect(reused.body.error).to.equal('invalid_request');
  });

  it('rule 3: expiry follows the configured lifetime', async () => {
    // The embedded store expires on the fake clock, so the lifetime can be a realistic one; Redis expires on
    // its own clock, so there the shortest lifetime is awaited for real.
    const onRedis = Boolean(process.env.TEST_REDIS_URL);
    const ttlSeconds = onRedis ? 1 : 300;
    const clock = onRedis ? undefined : installFakeClock();
    const short = await startService({ env: { SUBJECT_TOKEN_TTL_SECONDS: String(ttlSeconds) } });
    try {
      const user = await createUser(short);
      const app = await createApplication(short, {
        type: 'Traditional',
        customClientMetadata: { allowTokenExchange: true },
      });
      const res = await short.request('/api/subject-tokens', { method: 'POST', json: { userId: user.id } });
      const { subjectToken: token, expiresIn } = (await res.json()) as { subjectToken: string; expiresIn: number };
      expect(expiresIn).to.equal(ttlSeconds);
      // An unknown target is refused after the subject token was found valid, and spends nothing.
      const probe = async () =>
        (
          await tokenRequest(
            short,
            {
              grant_type: GRANT,
              subject_token_type: AT,
              subject_token: token,
              resource: 'https://unregistered.example.com',
            },
            app,
          )
        ).body.error;
      if (clock) {
        clock.advance(ttlSeconds * 1000 - 1);
        expect(await probe(), 'valid a millisecond before its lifetime ends').to.equal('invalid_target');
        clock.advance(1);
      } else {
        expect(await probe(), 'valid when issued').to.equal('invalid_target');
        await eventually(async () => (await probe()) === 'invalid_request', {
          timeoutMs: ttlSeconds * 1000 + 5000,
          intervalMs: 50,
          what: 'the subject token to expire',
        });
      }
      const { status, body } = await tokenRequest(
        short,
        { grant_type: GRANT, subject_token_type: AT, subject_token: token },
        app,
      );
      expect(status).to.equal(400);
      expect(body.error).to.equal('invalid_request');
      expect(body.error_description).to.match(/subject_token is invalid, expired or already used/);
    } finally {
      await short.close();
      clock?.uninstall();
    }
  });

  it('rule 3: a deleted or suspended user makes the subject token invalid_request', async () => {
    const carol = await createUser(running);
    const dave = await createUser(running);
    const forCarol = await subjectToken(running, carol.id);
    const forDave = await subjectToken(running, dave.id);
    await running.service.records.users.delete(carol.id);
    await running.service.records.users.update(dave.id, { isSuspended: true });
    const deleted = await exchange({ subject_token: forCarol });
    expect(deleted.body).to.include({ error: 'invalid_request' });
    expect(deleted.body.error_description).to.match(/no longer exists/);
    const suspended = await exchange({ subject_token: forDave });
    expect(suspended.body).to.include({ error: 'invalid_request' });
    expect(suspended.body.error_description).to.match(/suspended/);
    const refused = await running.request('/api/subject-tokens', { method: 'POST', json: { userId: dave.id } });
    expect(refused.status, 'no new subject token for the suspended user').to.equal(422);
  });

  it('rule 4: an unknown resource is invalid_target and leaves the subject token usable', async () => {
    const token = await subjectToken(running, alice.id);
    const { status, body } = await exchange({ subject_token: token, resource: 'https://unknown.example.com' });
    expect(status).to.equal(400);
    expect(body.error).to.equal('invalid_target');
    expect((await exchange({ subject_token: token, resource: INDICATOR, scope: 'write' })).body.scope).to.equal(
      'write',
    );
  });

  it("rule 4: scopes are the requested ones the user's roles grant; none gives an empty string", async () => {
    const token = await subjectToken(running, bob.id);
    const { status, body } = await exchange({ subject_token: token, resource: INDICATOR, scope: 'read write admin' });
    expect(status).to.equal(200);
    expect(body.scope).to.equal('');
    const claims = decodeJwt(body.access_token as string);
    expect(claims.sub).to.equal(bob.id);
    expect(claims, 'no actor token, no act claim').not.to.have.property('act');
  });

  it('rule 4: without a resource the token is for userinfo and carries only OIDC scopes', async () => {
    const token = await subjectToken(running, alice.id);
    const { status, body } = await exchange({ subject_token: token, scope: 'openid profile read offline_access' });
    expect(status).to.equal(200);
    expect(body.scope).to.equal('openid profile');
    expect(body).not.to.have.property('refresh_token');
    expect(body).not.to.have.property('id_token');
    const userinfo = await fetch(`${running.baseUrl}/oidc/me`, {
      headers: { authorization: `Bearer ${body.access_token}` },
    });
    expect(userinfo.status).to.equal(200);
    expect(((await userinfo.json()) as { sub: string }).sub).to.equal(alice.id);
  });

  it('rule 5: an actor token of the acting user adds act; an impersonation token cannot act (no chaining)', async () => {
    const first = await exchange({
      subject_token: await subjectToken(running, alice.id),
      resource: INDICATOR,
      scope: 'read',
      actor_token: bobToken,
      actor_token_type: AT,
    });
    expect(first.status).to.equal(200);
    const claims = decodeJwt(first.body.access_token as string);
    expect(claims.sub).to.equal(alice.id);
    expect(claims.act).to.deep.equal({ sub: bob.id });

    // Bob acting as Alice gets an openid token; used as an actor token, it is refused rather than nested.
    const aliceAsBob = await exchange({
      subject_token: await subjectToken(running, alice.id),
      scope: 'openid',
      actor_token: bobToken,
      actor_token_type: AT,
    });
    expect(aliceAsBob.status).to.equal(200);
    const carol = await createUser(running);
    const carolToken = await subjectToken(running, carol.id);
    const chained = await exchange({
      subject_token: carolToken,
      resource: INDICATOR,
      actor_token: aliceAsBob.body.access_token as string,
      actor_token_type: AT,
    });
    expect(chained.status).to.equal(400);
    expect(chained.body).to.deep.equal(
      oauthError('invalid_request', 'invalid actor_token: an impersonation token cannot act for another user'),
    );
    expect(
      (await exchange({ subject_token: carolToken, resource: INDICATOR })).status,
      'subject token still usable',
    ).to.equal(200);
  });

  it('rule 5: actor tokens without openid, unknown, or of an application are invalid_request', async () => {
    const token = await subjectToken(running, alice.id);
    const noOpenid = await exchange({ subject_token: await subjectToken(running, bob.id), scope: 'profile' });
    const m2m = await running.adminToken();
    for (const actor of [noOpenid.body.access_token as string, 'not-a-token', m2m]) {
      const { status, body } = await exchange({
        subject_token: token,
        resource: INDICATOR,
        actor_token: actor,
        actor_token_type: AT,
      });
      expect(status).to.equal(400);
      expect(body.error).to.equal('invalid_request');
      expect(body.error_description).to.match(/actor_token/);
    }
    expect((await exchange({ subject_token: token, resource: INDICATOR })).status, 'token still usable').to.equal(200);
  });

  it('rule 6: a customizer denial is access_denied and leaves the subject token usable', async () => {
    const token = await subjectToken(running, alice.id, { mode: 'deny-once', ticket: 'T-1' });
    const { status, body } = await exchange({ subject_token: token, resource: INDICATOR });
    expect(status).to.equal(400);
    expect(body).to.deep.equal(oauthError('access_denied', 'impersonation refused by policy'));
    const retry = await exchange({ subject_token: token, resource: INDICATOR });
    expect(retry.status, 'the denied exchange did not spend the token').to.equal(200);
    expect(decodeJwt(retry.body.access_token as string).ticket).to.equal('T-1');
  });

  it('rule 6: a failing customizer fails open by default (no custom claims)', async () => {
    const { status, body } = await exchange({
      subject_token: await subjectToken(running, alice.id, { mode: 'throw' }),
      resource: INDICATOR,
    });
    expect(status).to.equal(200);
    const claims = decodeJwt(body.access_token as string);
    expect(claims.sub).to.equal(alice.id);
    expect(claims).not.to.have.property('grant_type_seen');
  });

  it('rule 7: public clients send client_id in the body; confidential ones may use client_secret_post', async () => {
    const pub = await tokenRequest(running, {
      grant_type: GRANT,
      subject_token_type: AT,
      subject_token: await subjectToken(running, alice.id),
      client_id: spa.id,
      resource: INDICATOR,
    });
    expect(pub.status).to.equal(200);
    expect(decodeJwt(pub.body.access_token as string).client_id).to.equal(spa.id);
    const post = await tokenRequest(running, {
      grant_type: GRANT,
      subject_token_type: AT,
      subject_token: await subjectToken(running, alice.id),
      client_id: traditional.id,
      client_secret: traditional.secret,
      resource: INDICATOR,
    });
    expect(post.status).to.equal(200);
    expect(Object.keys(post.body).sort()).to.deep.equal([
      'access_token',
      'expires_in',
      'issued_token_type',
      'scope',
      'token_type',
    ]);
  });

  it('records creation and exchange in the audit trail', async () => {
    const marker = await createUser(running);
    const token = await subjectToken(running, marker.id);
    await exchange({ subject_token: token, resource: INDICATOR });
    const res = await running.request(`/api/impersonation-logs?userId=${marker.id}`);
    expect(res.status).to.equal(200);
    const logs = (await res.json()) as Array<Record<string, unknown>>;
    expect(logs.map((log) => log.type)).to.deep.equal(['TokenExchange.Succeeded', 'SubjectToken.Created']);
    expect(logs[0]).to.include({
      applicationId: traditional.id,
      resource: INDICATOR,
      createdBy: 'test-admin',
      userId: marker.id,
    });
    expect(logs[0]!.subjectTokenRef).to.equal(logs[1]!.subjectTokenRef);
    expect(JSON.stringify(logs)).not.to.include(token);
  });
});
