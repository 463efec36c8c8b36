import { expect } from 'chai';
import * as client from 'openid-client';
import { ADMIN, startService, type RunningService } from '../support/service.ts';
import { createApplication, createUser, subjectToken } from '../support/fixtures.ts';
import { capturingLogger, type LogLine } from '../support/logs.ts';
import { Browser, formAction } from '../support/browser.ts';

const REDIRECT = 'http://127.0.0.1:9/callback';
const PASSWORD = 'correct horse battery staple';
const INFO = 30;

describe('access log and request ids', () => {
  let running: RunningService;
  let captured: ReturnType<typeof capturingLogger>;

  before(async () => {
    captured = capturingLogger();
    running = await startService({ logger: captured.logger });
  });
  after(() => running.close());

  const linesOf = (requestId: string): LogLine[] => captured.lines.filter((line) => line.requestId === requestId);
  const rawOf = (requestId: string): string => captured.raw.filter((line) => line.includes(requestId)).join('\n');
  const accessLine = (requestId: string): LogLine => {
    const lines = linesOf(requestId).filter((line) => line.msg === 'request');
    expect(lines, `access lines of ${requestId}`).to.have.length(1);
    return lines[0]!;
  };

  it('keeps an acceptable incoming X-Request-Id and replaces any other with a generated one', async () => {
    const kept = await fetch(`${running.baseUrl}/healthz`, { headers: { 'x-request-id': 'edge-1234.abc:def_0' } });
    expect(kept.headers.get('x-request-id')).to.equal('edge-1234.abc:def_0');
    for (const incoming of ['has spaces', 'x'.repeat(129), 'semi;colon', '']) {
      const res = await fetch(`${running.baseUrl}/healthz`, { headers: incoming ? { 'x-request-id': incoming } : {} });
      expect(res.headers.get('x-request-id')).to.match(
        /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
      );
    }
  });

  it('logs a token request once, with its id, route, status, duration and client, and a token-issued line, never the secret or token', async () => {
    const requestId = 'token-request-1';
    const res = await fetch(`${running.baseUrl}/oidc/token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'client_credentials', resource: `${running.baseUrl}/api`, scope: 'all' }),
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-request-id': requestId,
        authorization: `Basic ${Buffer.from(`${ADMIN.id}:${ADMIN.secret}`).toString('base64')}`,
      },
    });
    const { access_token: accessToken } = (await res.json()) as { access_token: string };
    expect(res.headers.get('x-request-id')).to.equal(requestId);
    const line = accessLine(requestId);
    expect(line).to.include({ level: INFO, method: 'POST', route: 'oidc:token', status: 200, clientId: ADMIN.id });
    expect(line.durationMs).to.be.a('number').and.at.least(0);
    const issued = linesOf(requestId).find((candidate) => candidate.msg === 'token issued');
    expect(issued).to.include({
      level: INFO,
      grant: 'client_credentials',
      clientId: ADMIN.id,
      resource: `${running.baseUrl}/api`,
    });
    const raw = rawOf(requestId);
    expect(raw).not.to.include(ADMIN.secret);
    expect(raw).not.to.include(accessToken);
    expect(raw).not.to.include(Buffer.from(`${ADMIN.id}:${ADMIN.secret}`).toString('base64'));
  });

  it('names the impersonated user in the token-issued line of a token exchange, never the subject token', async () => {
    const user = await createUser(running);
    const app = await createApplication(running, {
      type: 'MachineToMachine',
      customClientMetadata: { allowTokenExchange: true },
    });
    const subject = await subjectToken(running, user.id);
    const requestId = 'token-exchange-1';
    const res = await fetch(`${running.baseUrl}/oidc/token`, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
        subject_token: subject,
        subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      }),
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-request-id': requestId,
        authorization: `Basic ${Buffer.from(`${app.id}:${app.secret}`).toString('base64')}`,
      },
    });
    expect(res.status).to.equal(200);
    const { access_token: accessToken } = (await res.json()) as { access_token: string };
    const issued = linesOf(requestId).find((line) => line.msg === 'token issued');
    expect(issued).to.include({
      grant: 'urn:ietf:params:oauth:grant-type:token-exchange',
      clientId: app.id,
      userId: user.id,
    });
    expect(rawOf(requestId)).not.to.include(subject);
    expect(rawOf(requestId)).not.to.include(accessToken);
  });

  it('logs a management request with its route pattern and client, never its bearer token or query string', async () => {
    const token = await running.adminToken();
    const requestId = 'management-request-1';
    const res = await running.request('/api/applications/some-app-id?search=query-secret-value', {
      token,
      headers: { 'x-request-id': requestId },
    });
    expect(res.status).to.equal(404);
    expect(accessLine(requestId)).to.include({
      method: 'GET',
      route: '/api/applications/:id',
      status: 404,
      clientId: ADMIN.id,
    });
    const raw = rawOf(requestId);
    expect(raw).not.to.include(token);
    expect(raw).not.to.include('query-secret-value');
    expect(raw).not.to.include('some-app-id');
  });

  it('logs the sign-in form post and the code exchange without the password, the code, the cookies or the tokens', async () => {
    await createUser(running, [], { username: 'logged-alice' }, PASSWORD);
    const app = await createApplication(running, {
      type: 'Traditional',
      oidcClientMetadata: { redirectUris: [REDIRECT] },
    });
    const config = await client.discovery(new URL(`${running.baseUrl}/oidc`), app.id, app.secret, undefined, {
      execute: [client.allowInsecureRequests],
    });
    const verifier = client.randomPKCECodeVerifier();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT,
      scope: 'openid',
      state: 'st',
      code_challenge_method: 'S256',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
    });
    const browser = new Browser();
    const page = await (await browser.follow(url.href, REDIRECT)).res.text();
    const signedIn = await browser.submit(
      formAction(page),
      { identifier: 'logged-alice', password: PASSWORD },
      REDIRECT,
    );
    const callback = new URL(signedIn.url);
    const code = callback.searchParams.get('code');
    expect(code, signedIn.url).to.be.a('string');
    const posts = captured.lines.filter(
      (line) => line.msg === 'request' && line.method === 'POST' && String(line.route).startsWith('/interaction/'),
    );
    expect(posts).to.have.length(1);
    expect(posts[0]!.status).to.be.within(300, 399);
    expect(posts[0]!.requestId).to.be.a('string');
    const tokens = await client.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: verifier,
      expectedState: 'st',
    });
    const everything = captured.raw.join('\n');
    for (const secret of [PASSWORD, code!, tokens.access_token, tokens.id_token!, app.secret!, verifier]) {
      expect(everything).not.to.include(secret);
    }
    const issued = captured.lines.filter((line) => line.msg === 'token issued' && line.grant === 'authorization_code');
    expect(issued).to.have.length(1);
    expect(issued[0]).to.include({ clientId: app.id });
    expect(issued[0]!.userId).to.be.a('string');
    expect(captured.raw.filter((line) => /"cookie"|_session|_interaction/.test(line))).to.deep.equal([]);
  });
});

describe('request ids in the lines libraries log', () => {
  it('carries the request id into a line the customizer logs while the token is issued', async () => {
    const captured = capturingLogger();
    const running = await startService({
      logger: captured.logger,
      jwtCustomizer: {
        getCustomJwtClaims: async () => {
          throw new Error('customizer failure');
        },
      },
    });
    try {
      const res = await fetch(`${running.baseUrl}/oidc/token`, {
        method: 'POST',
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          resource: `${running.baseUrl}/api`,
          scope: 'all',
        }),
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'x-request-id': 'customizer-request-1',
          authorization: `Basic ${Buffer.from(`${ADMIN.id}:${ADMIN.secret}`).toString('base64')}`,
        },
      });
      expect(res.status).to.equal(200);
      const failed = captured.lines.filter((line) => line.msg === 'custom JWT claims failed');
      expect(failed).to.have.length(1);
      expect(failed[0]!.requestId).to.equal('customizer-request-1');
      const outside = captured.lines.filter((line) => line.msg === 'bootstrap admin application created');
      expect(outside.map((line) => line.requestId)).to.deep.equal([undefined]);
    } finally {
      await running.close();
    }
  });
});
