import { expect } from 'chai';
import { jwtVerify } from 'jose';
import { json } from '../support/experience.ts';
import {
  API_CALLBACK,
  listen,
  logtoOidcConfig,
  paramsOf,
  startFederation,
  type Federation,
  type UpstreamUser,
} from '../support/connectors.ts';

/**
 * Connectors created from the configs Logto exports: its OIDC connector (endpoints, `idTokenVerificationConfig`,
 * `authRequestOptionalConfig`, `customConfig`, `scope` in its spelling, `responseType`, `grantType`, a relative or
 * empty logo) against a second instance of the service, and its OAuth 2.0 connector against a token endpoint that
 * answers form encoded, as GitHub's does.
 */
describe("connectors from Logto's exported configs", () => {
  let f: Federation;
  let issuer: string;

  before(async () => {
    f = await startFederation();
    issuer = `${f.upstream.baseUrl}/oidc`;
  });
  after(() => f.close());

  const create = (body: Record<string, unknown>) =>
    f.h.running.request('/api/connectors', { method: 'POST', json: body });

  const logtoOidc = (verification: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) =>
    logtoOidcConfig(f, verification, extra);

  /** A social sign-in (event SignIn) through the connector up to the callback; the answer of `/verify`. */
  async function throughUpstream(connectorId: string, user: UpstreamUser) {
    const client = f.h.client();
    await client.open(f.h.app);
    await client.ok('PUT', '', { interactionEvent: 'SignIn' });
    const { authorizationUri, verificationId } = await client.ok(
      'POST',
      `/verification/social/${connectorId}/authorization-uri`,
      {
        state: 'client-state-1234',
        redirectUri: API_CALLBACK,
      },
    );
    const callback = await f.signInUpstream(authorizationUri, user);
    const verified = await client.api('POST', `/verification/social/${connectorId}/verify`, {
      verificationId,
      connectorData: paramsOf(callback),
    });
    return { client, verificationId, authorizationUri: new URL(authorizationUri), verified };
  }

  it("creates the connector from Logto's OIDC config and registers through it, with the request the config describes", async () => {
    const res = await create({
      connectorId: 'oidc',
      metadata: { target: 'logto-oidc', name: { en: 'Logto OIDC' }, logo: './logo.svg', logoDark: '' },
      config: logtoOidc(
        { audience: f.client.id, algorithms: ['ES256', 'EdDSA'], clockTolerance: '30s', maxTokenAge: 600 },
        {
          authRequestOptionalConfig: { prompt: 'login', uiLocales: 'en', responseMode: 'query' },
          customConfig: { accessType: 'offline' },
        },
      ),
    });
    const connector = await json(res);
    expect(res.status, JSON.stringify(connector)).to.equal(201);
    expect(connector.metadata).to.include({ logo: './logo.svg', logoDark: null });
    expect(connector.config).to.deep.include({
      scope: 'profile email openid',
      responseType: 'code',
      grantType: 'authorization_code',
    });
    expect(connector.config.idTokenVerificationConfig).to.include({ clockTolerance: 30, maxTokenAge: 600 });

    const person = await f.upstreamUser(undefined, 'Logto Export');
    const { client, verificationId, authorizationUri, verified } = await throughUpstream(connector.id, person);
    expect(verified.status, JSON.stringify(verified.body)).to.be.lessThan(300);
    expect(Object.fromEntries(authorizationUri.searchParams)).to.include({
      response_type: 'code',
      client_id: f.client.id,
      scope: 'profile email openid',
      prompt: 'login',
      ui_locales: 'en',
      response_mode: 'query',
      access_type: 'offline',
      code_challenge_method: 'S256',
    });
    expect(authorizationUri.searchParams.get('nonce')).to.be.a('string');
    await client.ok('PUT', '/interaction-event', { interactionEvent: 'Register' });
    const created = await client.api('POST', '/identification', { verificationId });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    const userId = (await client.submitForTokens()).claims()!.sub;
    const user = await json(f.h.running.request(`/api/users/${userId}`));
    expect(user).to.include({ primaryEmail: person.email, name: 'Logto Export' });
    expect(user.identities['logto-oidc']).to.deep.include({ userId: person.id });
  });

  it('checks the ID token as idTokenVerificationConfig says: issuer, algorithms, subject (401 connector.social_id_token_invalid)', async () => {
    const person = await f.upstreamUser();
    for (const [target, verification] of [
      ['wrong-issuer', { issuer: 'https://someone-else.example.com' }],
      ['wrong-algorithm', { algorithms: ['RS256'] }],
      ['wrong-subject', { subject: 'somebody-else' }],
    ] as const) {
      const res = await create({ connectorId: 'oidc', metadata: { target }, config: logtoOidc(verification) });
      expect(res.status, target).to.equal(201);
      const { verified } = await throughUpstream((await json(res)).id, person);
      expect(verified.status, `${target}: ${JSON.stringify(verified.body)}`).to.equal(401);
      expect(verified.body.code, target).to.equal('connector.social_id_token_invalid');
    }
    const matching = await create({
      connectorId: 'oidc',
      metadata: { target: 'right-subject' },
      config: logtoOidc({ subject: person.id, issuer: [issuer] }),
    });
    const { verified } = await throughUpstream((await json(matching)).id, person);
    expect(verified.status, JSON.stringify(verified.body)).to.be.lessThan(300);
  });

  it("refuses what cannot act here with 400 connector.invalid_config, and an unknown factory with Logto's 422 code", async () => {
    const refused: Array<[string, Record<string, unknown>]> = [
      ['a fixed verification date', logtoOidc({ currentDate: '2020-01-01T00:00:00Z' })],
      ['another audience', logtoOidc({ audience: 'someone-else' })],
      ['a symmetric algorithm', logtoOidc({ algorithms: ['HS256'] })],
      ['a clock tolerance beyond a day', logtoOidc({ clockTolerance: '2 days' })],
      ['another response type', logtoOidc({}, { responseType: 'token' })],
      ['another grant type', logtoOidc({}, { grantType: 'implicit' })],
      ['form_post', logtoOidc({}, { authRequestOptionalConfig: { responseMode: 'form_post' } })],
      ['a flow parameter in customConfig', logtoOidc({}, { customConfig: { state: 'fixed' } })],
      ['a camel-cased flow parameter', logtoOidc({}, { customConfig: { redirectUri: 'https://evil.example.com' } })],
    ];
    for (const [what, config] of refused) {
      const res = await create({ connectorId: 'oidc', metadata: { target: 'refused' }, config });
      expect(res.status, what).to.equal(400);
      expect((await json(res)).code, what).to.equal('connector.invalid_config');
    }
    for (const logo of [
      'javascript:alert(1)',
      ' javascript:alert(1)',
      'java\tscript:alert(1)',
      '//evil.example.com/logo.png',
      '\\\\evil.example.com/logo.png',
    ]) {
      const refusedLogo = await create({
        connectorId: 'oidc',
        metadata: { target: 'refused', logo },
        config: logtoOidc(),
      });
      expect(refusedLogo.status, logo).to.equal(400);
    }
    for (const body of [
      { connectorId: 'github-universal', metadata: { target: 'github' }, config: {} },
      { connectorId: 'mock-email-service' },
    ]) {
      const unknown = await create(body);
      expect([unknown.status, (await json(unknown)).code], 'the factory is checked first, as in Logto').to.deep.equal([
        422,
        'connector.not_found_with_connector_id',
      ]);
    }
    const noTarget = await create({ connectorId: 'oidc', config: logtoOidc() });
    expect([noTarget.status, (await json(noTarget)).code]).to.deep.equal([400, 'connector.should_specify_target']);
    const noConfig = await create({ connectorId: 'oidc', metadata: { target: 'no-config' } });
    expect([noConfig.status, (await json(noConfig)).code]).to.deep.equal([400, 'connector.invalid_config']);
  });

  it('OAuth 2.0: reads a form-encoded token answer (tokenEndpointResponseType query-string) and sends customConfig', async () => {
    const provider = await listen((req, res, body) => {
      const url = new URL(req.url ?? '/', 'http://local');
      if (url.pathname === '/login/oauth/access_token') {
        const form = new URLSearchParams(body);
        // A refused code is answered 200 with an error, as GitHub does.
        const answer =
          form.get('code') === 'good-code' && form.get('code_verifier') && form.get('allow_signup') === 'false'
            ? 'access_token=gho_token123&scope=read%3Auser&token_type=bearer'
            : 'error=bad_verification_code&error_description=The+code+passed+is+incorrect+or+expired.';
        res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(answer);
      } else if (url.pathname === '/user' && req.headers.authorization === 'Bearer gho_token123') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            id: 583231,
            login: 'octocat',
            name: 'The Octocat',
            avatar_url: 'https://avatars.example.com/u/583231',
          }),
        );
      } else {
        res.writeHead(401).end();
      }
    });
    try {
      const res = await create({
        connectorId: 'oauth2',
        metadata: { target: 'github', name: { en: 'GitHub' }, logo: '' },
        config: {
          clientId: 'Iv1.abc',
          clientSecret: 'github-secret',
          responseType: 'code',
          grantType: 'authorization_code',
          authorizationEndpoint: `${provider.origin}/login/oauth/authorize`,
          tokenEndpoint: `${provider.origin}/login/oauth/access_token`,
          userInfoEndpoint: `${provider.origin}/user`,
          scope: 'read:user+user:email',
          tokenEndpointResponseType: 'query-string',
          customConfig: { allowSignup: 'false' },
          profileMap: { id: 'id', name: 'name', avatar: 'avatar_url' },
        },
      });
      const connector = await json(res);
      expect(res.status, JSON.stringify(connector)).to.equal(201);
      expect(connector.metadata.logo).to.equal(null);

      const attempt = async (code: string) => {
        const client = f.h.client();
        await client.open(f.h.app);
        await client.ok('PUT', '', { interactionEvent: 'Register' });
        const { authorizationUri, verificationId } = await client.ok(
          'POST',
          `/verification/social/${connector.id}/authorization-uri`,
          {
            state: 'client-state-5678',
            redirectUri: API_CALLBACK,
          },
        );
        const sent = new URL(authorizationUri).searchParams;
        expect(Object.fromEntries(sent)).to.include({
          scope: 'read:user user:email',
          allow_signup: 'false',
          client_id: 'Iv1.abc',
        });
        const verified = await client.api('POST', `/verification/social/${connector.id}/verify`, {
          verificationId,
          connectorData: { code, state: sent.get('state') },
        });
        return { client, verificationId, verified };
      };

      const wrong = await attempt('stale-code');
      expect(wrong.verified.status).to.equal(401);
      expect(wrong.verified.body.code).to.equal('connector.social_auth_code_invalid');

      const good = await attempt('good-code');
      expect(good.verified.status, JSON.stringify(good.verified.body)).to.be.lessThan(300);
      const created = await good.client.api('POST', '/identification', { verificationId: good.verificationId });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      const userId = (await good.client.submitForTokens()).claims()!.sub;
      const user = await json(f.h.running.request(`/api/users/${userId}`));
      expect(user).to.include({ name: 'The Octocat', avatar: 'https://avatars.example.com/u/583231' });
      expect(user.identities.github).to.deep.include({ userId: '583231' });
      const token = provider.requests.find(
        (request) => request.path === '/login/oauth/access_token' && request.body.includes('good-code'),
      )!;
      expect(token.headers.authorization, 'client_secret_basic').to.equal(
        `Basic ${Buffer.from('Iv1.abc:github-secret').toString('base64')}`,
      );
      expect(token.headers.accept).to.equal('application/x-www-form-urlencoded');

      const asJson = await f.h.running.request(`/api/connectors/${connector.id}`, {
        method: 'PATCH',
        json: { config: { ...connector.config, tokenEndpointResponseType: 'json' } },
      });
      expect(asJson.status).to.equal(200);
      const strict = await attempt('good-code');
      expect(strict.verified.status, 'json: a form-encoded answer is refused').to.equal(400);
      expect(strict.verified.body.code).to.equal('connector.invalid_response');
    } finally {
      await provider.close();
    }
  });

  it('client_secret_jwt: the code is redeemed with a client assertion signed by the secret (clientSecretJwtSigningAlgorithm)', async () => {
    const secret = 'a-shared-secret-of-enough-length-123';
    const seen: Array<Record<string, unknown>> = [];
    const provider = await listen((req, res, body) => {
      const url = new URL(req.url ?? '/', 'http://local');
      if (url.pathname === '/token') {
        const form = new URLSearchParams(body);
        void jwtVerify(form.get('client_assertion') ?? '', new TextEncoder().encode(secret), {
          algorithms: ['HS512'],
          issuer: 'jwt-client',
          subject: 'jwt-client',
          audience: `${provider.origin}/token`,
        }).then(
          ({ payload, protectedHeader }) => {
            seen.push({
              ...payload,
              alg: protectedHeader.alg,
              type: form.get('client_assertion_type'),
              basic: req.headers.authorization ?? null,
            });
            res
              .writeHead(200, { 'content-type': 'application/json' })
              .end(JSON.stringify({ access_token: 'jwt-token', token_type: 'bearer' }));
          },
          () =>
            res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'invalid_client' })),
        );
      } else if (url.pathname === '/me' && req.headers.authorization === 'Bearer jwt-token') {
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ id: 'jwt-user-1', name: 'Assertion Person' }));
      } else {
        res.writeHead(404).end();
      }
    });
    try {
      const config = {
        clientId: 'jwt-client',
        clientSecret: secret,
        tokenEndpointAuthMethod: 'client_secret_jwt',
        clientSecretJwtSigningAlgorithm: 'HS512',
        authorizationEndpoint: `${provider.origin}/authorize`,
        tokenEndpoint: `${provider.origin}/token`,
        userInfoEndpoint: `${provider.origin}/me`,
      };
      const res = await create({ connectorId: 'oauth2', metadata: { target: 'jwt-idp' }, config });
      const connector = await json(res);
      expect(res.status, JSON.stringify(connector)).to.equal(201);
      const client = f.h.client();
      await client.open(f.h.app);
      await client.ok('PUT', '', { interactionEvent: 'Register' });
      const { authorizationUri, verificationId } = await client.ok(
        'POST',
        `/verification/social/${connector.id}/authorization-uri`,
        {
          state: 'client-state-jwt',
          redirectUri: API_CALLBACK,
        },
      );
      const verified = await client.api('POST', `/verification/social/${connector.id}/verify`, {
        verificationId,
        connectorData: { code: 'jwt-code', state: new URL(authorizationUri).searchParams.get('state') },
      });
      expect(verified.status, JSON.stringify(verified.body)).to.be.lessThan(300);
      expect(seen).to.have.length(1);
      expect(seen[0]).to.include({
        alg: 'HS512',
        type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
        basic: null,
      });
      expect(seen[0]!.jti).to.be.a('string');

      const wrongSecret = await f.h.running.request(`/api/connectors/${connector.id}`, {
        method: 'PATCH',
        json: { config: { ...config, clientSecret: 'another-secret-entirely-456' } },
      });
      expect(wrongSecret.status).to.equal(200);
      const again = f.h.client();
      await again.open(f.h.app);
      await again.ok('PUT', '', { interactionEvent: 'Register' });
      const started = await again.ok('POST', `/verification/social/${connector.id}/authorization-uri`, {
        state: 'client-state-jwt2',
        redirectUri: API_CALLBACK,
      });
      const refused = await again.api('POST', `/verification/social/${connector.id}/verify`, {
        verificationId: started.verificationId,
        connectorData: { code: 'jwt-code', state: new URL(started.authorizationUri).searchParams.get('state') },
      });
      expect([refused.status, refused.body.code], 'an assertion the provider cannot verify').to.deep.equal([
        400,
        'connector.invalid_response',
      ]);

      const discovery = await create({
        connectorId: 'oidc',
        metadata: { target: 'jwt-discovery' },
        config: { clientId: 'x', clientSecret: 'y', issuer, tokenEndpointAuthMethod: 'client_secret_jwt' },
      });
      expect([discovery.status, (await json(discovery)).code]).to.deep.equal([400, 'connector.invalid_config']);
    } finally {
      await provider.close();
    }
  });
});
