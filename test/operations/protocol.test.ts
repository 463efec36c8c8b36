import { expect } from 'chai';
import { decodeJwt } from 'jose';
import { startService, type RunningService } from '../support/service.ts';
import {
  createApplication,
  createResource,
  createRole,
  createUser,
  subjectToken,
  tokenRequest,
  type ApiFixture,
} from '../support/fixtures.ts';
import { createInteractiveApp, createSignInUser, REDIRECT, signIn, type App } from '../support/settings.ts';

const EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const AT = 'urn:ietf:params:oauth:token-type:access_token';
const INDICATOR = 'https://protocol.example.com';

async function introspect(
  running: RunningService,
  caller: App,
  token: string,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${running.baseUrl}/oidc/token/introspection`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${caller.id}:${caller.secret}`).toString('base64')}` },
    body: new URLSearchParams({ token }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('protocol surface', () => {
  let running: RunningService;
  let exchanger: App;
  let other: App;
  let resourceServer: App;
  let user: { id: string };
  let api: ApiFixture;

  before(async () => {
    running = await startService();
    api = await createResource(running, INDICATOR, ['read']);
    exchanger = await createApplication(running, {
      type: 'Traditional',
      customClientMetadata: { allowTokenExchange: true },
    });
    other = await createApplication(running, { type: 'Traditional' });
    resourceServer = await createApplication(running, { type: 'MachineToMachine' });
    const m2mRole = await createRole(running, [api.scopes.read!.id], 'MachineToMachine');
    const assigned = await running.request(`/api/applications/${resourceServer.id}/roles`, {
      method: 'POST',
      json: { roleIds: [m2mRole.id] },
    });
    expect(assigned.status).to.be.oneOf([200, 201, 204]);
    user = await createUser(running);
  });
  after(() => running.close());

  describe('discovery', () => {
    it('advertises only the response types, grants and client authentication the service serves', async () => {
      const res = await fetch(`${running.baseUrl}/oidc/.well-known/openid-configuration`);
      const discovery = (await res.json()) as Record<string, unknown>;
      expect(discovery.response_types_supported).to.deep.equal(['code']);
      expect(discovery.grant_types_supported).to.have.members([
        'authorization_code',
        'refresh_token',
        'client_credentials',
        EXCHANGE,
      ]);
      expect(discovery.token_endpoint_auth_methods_supported).to.have.members([
        'client_secret_basic',
        'client_secret_post',
        'none',
      ]);
      expect(discovery.code_challenge_methods_supported).to.deep.equal(['S256']);
      for (const absent of [
        'token_endpoint_auth_signing_alg_values_supported',
        'dpop_signing_alg_values_supported',
        'pushed_authorization_request_endpoint',
        'registration_endpoint',
        'device_authorization_endpoint',
      ])
        expect(discovery, absent).not.to.have.property(absent);
    });

    it('refuses an implicit (id_token) authorization request with unsupported_response_type', async () => {
      const app = await createInteractiveApp(running, 'Traditional');
      const url = new URL(`${running.baseUrl}/oidc/auth`);
      for (const [name, value] of Object.entries({
        client_id: app.id,
        response_type: 'id_token',
        redirect_uri: REDIRECT,
        scope: 'openid',
        nonce: 'n',
        state: 's',
      }))
        url.searchParams.set(name, value);
      const res = await fetch(url, { redirect: 'manual' });
      const location = new URL(res.headers.get('location') ?? `${REDIRECT}?error=none`);
      const params = new URLSearchParams(location.hash.slice(1) || location.search);
      expect(params.get('error')).to.equal('unsupported_response_type');
    });
  });

  describe('token introspection', () => {
    it('lets a client introspect its own token and answers { active: false } to any other client, resource servers included', async () => {
      const exchanged = await tokenRequest(
        running,
        {
          grant_type: EXCHANGE,
          subject_token: await subjectToken(running, user.id),
          subject_token_type: AT,
          scope: 'openid',
        },
        exchanger,
      );
      expect(exchanged.status).to.equal(200);
      const token = exchanged.body.access_token as string;

      const own = await introspect(running, exchanger, token);
      expect(own.status).to.equal(200);
      expect(own.body).to.include({ active: true, client_id: exchanger.id, sub: user.id });

      // A token for the userinfo endpoint names no API, so no resource server may read it either.
      for (const caller of [other, resourceServer]) {
        expect(await introspect(running, caller, token)).to.deep.equal({ status: 200, body: { active: false } });
      }
    });

    it("never shows a client another client's refresh token", async () => {
      const app = await createInteractiveApp(running, 'Traditional');
      const signer = await createSignInUser(running);
      const tokens = await signIn(running, app, signer.username, { scope: 'openid offline_access', prompt: 'consent' });
      expect(tokens.refresh_token).to.be.a('string');
      expect((await introspect(running, app, tokens.refresh_token!)).body).to.include({
        active: true,
        client_id: app.id,
      });
      expect(await introspect(running, other, tokens.refresh_token!)).to.deep.equal({
        status: 200,
        body: { active: false },
      });
    });

    it('refuses JWT access tokens, which resource servers verify with the JWKS, but answers for impersonation JWTs', async () => {
      const machine = await tokenRequest(
        running,
        { grant_type: 'client_credentials', resource: INDICATOR, scope: 'read' },
        resourceServer,
      );
      expect(machine.status).to.equal(200);
      const refused = await introspect(running, resourceServer, machine.body.access_token as string);
      expect(refused.status).to.equal(400);
      expect(refused.body.error).to.equal('unsupported_token_type');

      const jwt = await tokenRequest(
        running,
        {
          grant_type: EXCHANGE,
          subject_token: await subjectToken(running, user.id),
          subject_token_type: AT,
          resource: INDICATOR,
        },
        exchanger,
      );
      const res = await introspect(running, resourceServer, jwt.body.access_token as string);
      expect(res.status).to.equal(200);
      expect(res.body).to.include({
        active: true,
        sub: user.id,
        impersonation_id: decodeJwt(jwt.body.access_token as string).impersonation_id,
      });
    });
  });

  describe('exchanged JWTs', () => {
    it('carry the scope claim as an empty string when the user holds none of the requested scopes', async () => {
      const { status, body } = await tokenRequest(
        running,
        {
          grant_type: EXCHANGE,
          subject_token: await subjectToken(running, user.id),
          subject_token_type: AT,
          resource: INDICATOR,
          scope: 'read',
        },
        exchanger,
      );
      expect(status).to.equal(200);
      expect(body.scope).to.equal('');
      const claims = decodeJwt(body.access_token as string);
      expect(claims).to.have.property('scope', '');
    });

    it('carry the granted scopes when there are some', async () => {
      const reader = await createRole(running, [api.scopes.read!.id]);
      const holder = await createUser(running, [reader.id]);
      const { body } = await tokenRequest(
        running,
        {
          grant_type: EXCHANGE,
          subject_token: await subjectToken(running, holder.id),
          subject_token_type: AT,
          resource: INDICATOR,
          scope: 'read',
        },
        exchanger,
      );
      expect(decodeJwt(body.access_token as string)).to.have.property('scope', 'read');
    });
  });
});
