import { expect } from 'chai';
import { startService, type RunningService } from '../support/service.ts';
import { authorize, createInteractiveApp, createSignInUser, type App } from '../support/settings.ts';

const ALLOWED = 'https://app.example.com';
const OTHER = 'https://other.example.com';

describe('customClientMetadata.corsAllowedOrigins', () => {
  let running: RunningService;
  let username: string;

  before(async () => {
    running = await startService();
    ({ username } = await createSignInUser(running));
  });
  after(() => running.close());

  function post(path: string, origin: string, app: App, form: Record<string, string>) {
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', origin };
    if (app.secret) headers.authorization = `Basic ${Buffer.from(`${app.id}:${app.secret}`).toString('base64')}`;
    const body = new URLSearchParams(app.secret ? form : { ...form, client_id: app.id });
    return fetch(`${running.baseUrl}/oidc${path}`, { method: 'POST', headers, body });
  }

  /** Signs in and redeems the code from a page at `origin`. */
  async function codeExchange(app: App, origin: string, scope = 'openid offline_access') {
    const { callback, verifier } = await authorize(running, app, username, { scope, prompt: 'consent' });
    return post('/token', origin, app, {
      grant_type: 'authorization_code',
      code: callback.searchParams.get('code')!,
      redirect_uri: 'http://127.0.0.1:9/callback',
      code_verifier: verifier,
    });
  }

  const allowOrigin = (res: Response) => res.headers.get('access-control-allow-origin');

  it('lets pages at a listed origin read the token, userinfo and revocation answers of a public client', async () => {
    const spa = await createInteractiveApp(running, 'SPA', { corsAllowedOrigins: [ALLOWED] });
    const exchanged = await codeExchange(spa, ALLOWED);
    expect(exchanged.status).to.equal(200);
    expect(allowOrigin(exchanged)).to.equal(ALLOWED);
    const tokens = (await exchanged.json()) as { access_token: string; refresh_token: string };

    const userinfo = (origin: string) =>
      fetch(`${running.baseUrl}/oidc/me`, {
        headers: { authorization: `Bearer ${tokens.access_token}`, origin },
      });
    const allowedInfo = await userinfo(ALLOWED);
    expect(allowedInfo.status).to.equal(200);
    expect(allowOrigin(allowedInfo)).to.equal(ALLOWED);
    const otherInfo = await userinfo(OTHER);
    expect(otherInfo.status).to.equal(400);
    expect(allowOrigin(otherInfo)).to.equal(null);

    const otherRefresh = await post('/token', OTHER, spa, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
    });
    expect(otherRefresh.status).to.equal(400);
    expect(allowOrigin(otherRefresh)).to.equal(null);
    expect(((await otherRefresh.json()) as { error_description: string }).error_description).to.include(OTHER);

    const otherRevocation = await post('/token/revocation', OTHER, spa, { token: tokens.refresh_token });
    expect(allowOrigin(otherRevocation)).to.equal(null);
    const revocation = await post('/token/revocation', ALLOWED, spa, { token: tokens.refresh_token });
    expect(revocation.status).to.equal(200);
    expect(allowOrigin(revocation)).to.equal(ALLOWED);
  });

  it('answers every preflight, which names no client: the request that follows is the one checked', async () => {
    const spa = await createInteractiveApp(running, 'SPA', { corsAllowedOrigins: [ALLOWED] });
    for (const origin of [ALLOWED, OTHER]) {
      const preflight = await fetch(`${running.baseUrl}/oidc/token`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST' },
      });
      expect(preflight.status).to.equal(204);
      expect(allowOrigin(preflight)).to.equal(origin);
      expect(preflight.headers.get('access-control-allow-methods')).to.include('POST');
    }
    const actual = await post('/token', OTHER, spa, { grant_type: 'refresh_token', refresh_token: 'unknown' });
    expect(actual.status).to.equal(400);
    expect(allowOrigin(actual)).to.equal(null);
  });

  it('refuses that origin for an application that does not list it, and keeps its redirect-URI origin', async () => {
    const spa = await createInteractiveApp(running, 'SPA');
    const refused = await codeExchange(spa, ALLOWED, 'openid');
    expect(refused.status).to.equal(400);
    expect(allowOrigin(refused)).to.equal(null);
    const redirectOrigin = await codeExchange(spa, 'http://127.0.0.1:9', 'openid');
    expect(redirectOrigin.status).to.equal(200);
    expect(allowOrigin(redirectOrigin)).to.equal('http://127.0.0.1:9');
  });

  it('opens the token endpoint of a confidential client to listed origins only', async () => {
    const listed = await createInteractiveApp(running, 'Traditional', { corsAllowedOrigins: [ALLOWED] });
    const allowed = await codeExchange(listed, ALLOWED, 'openid');
    expect(allowed.status).to.equal(200);
    expect(allowOrigin(allowed)).to.equal(ALLOWED);
    const other = await codeExchange(listed, OTHER, 'openid');
    expect(other.status).to.equal(400);
    expect(allowOrigin(other)).to.equal(null);
  });

  it('refuses values that are not origins', async () => {
    for (const origin of [
      'https://app.example.com/',
      'https://app.example.com/path',
      'ftp://app.example.com',
      'https://APP.example.com',
      'app.example.com',
    ]) {
      const res = await running.request('/api/applications', {
        method: 'POST',
        json: { name: 'x', type: 'SPA', customClientMetadata: { corsAllowedOrigins: [origin] } },
      });
      expect(res.status, origin).to.equal(400);
      const body = (await res.json()) as { code: string; message: string };
      expect(body.code).to.equal('guard.invalid_input');
      expect(body.message).to.include('corsAllowedOrigins');
    }
  });
});
