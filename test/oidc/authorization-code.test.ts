import { expect } from 'chai';
import * as client from 'openid-client';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { startService, type RunningService } from '../support/service.ts';
import { createApplication, createResource, createRole, createUser } from '../support/fixtures.ts';
import { Browser, formAction } from '../support/browser.ts';

const REDIRECT = 'http://127.0.0.1:9/callback';
const INDICATOR = 'https://orders.example.com';

describe('authorization code flow with PKCE through the sign-in page', () => {
  let running: RunningService;
  let alice: { id: string };
  let events: Array<Record<string, unknown>>;

  before(async () => {
    running = await startService();
    const api = await createResource(running, INDICATOR, ['orders:read', 'orders:write']);
    const role = await createRole(running, [api.scopes['orders:read']!.id]);
    alice = await createUser(
      running,
      [role.id],
      { username: 'alice', primaryEmail: 'alice@example.com' },
      'correct horse battery',
    );
    events = [];
    running.service.core.bus.subscribe(async (published) => {
      events.push(...published);
    });
  });
  after(() => running.close());

  async function configFor(app: { id: string; secret?: string }) {
    return client.discovery(
      new URL(`${running.baseUrl}/oidc`),
      app.id,
      app.secret,
      app.secret ? undefined : client.None(),
      {
        execute: [client.allowInsecureRequests],
      },
    );
  }

  async function authorize(config: client.Configuration, params: Record<string, string>) {
    const verifier = client.randomPKCECodeVerifier();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT,
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state: 'xyz',
      ...params,
    });
    return { url, verifier };
  }

  it('signs a user in (PostSignIn), issues ID, access and refresh tokens to a confidential app, and refreshes', async () => {
    const app = await createApplication(running, {
      type: 'Traditional',
      oidcClientMetadata: { redirectUris: [REDIRECT] },
    });
    const config = await configFor(app);
    const { url, verifier } = await authorize(config, {
      scope: 'openid profile email offline_access',
      prompt: 'consent',
    });
    const browser = new Browser();
    const login = await browser.follow(url.href, REDIRECT);
    expect(login.res.status).to.equal(200);
    const page = await login.res.text();
    expect(page).to.include('Sign in to');

    const wrong = await browser.submit(formAction(page), { identifier: 'alice', password: 'wrong password' }, REDIRECT);
    expect(wrong.res.status).to.equal(401);
    expect(await wrong.res.text()).to.include('not right');
    expect(events.filter((event) => event.event === 'PostSignIn')).to.have.length(0);

    const callback = await browser.submit(
      formAction(page),
      { identifier: 'alice@example.com', password: 'correct horse battery' },
      REDIRECT,
    );
    // offline_access needs prompt=consent, which a first-party application is granted without a consent page.
    expect(callback.url.startsWith(REDIRECT), 'no consent page for a first-party app').to.equal(true);

    const tokens = await client.authorizationCodeGrant(config, new URL(callback.url), {
      pkceCodeVerifier: verifier,
      expectedState: 'xyz',
    });
    expect(tokens.claims()!.sub).to.equal(alice.id);
    expect(tokens.refresh_token).to.be.a('string');
    const info = await client.fetchUserInfo(config, tokens.access_token, alice.id);
    expect(info).to.include({ preferred_username: 'alice', email: 'alice@example.com' });

    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.access_token).to.be.a('string').and.not.equal(tokens.access_token);

    const signIns = events.filter((event) => event.event === 'PostSignIn');
    expect(signIns).to.have.length(1);
    expect(signIns[0]).to.include({ interactionEvent: 'SignIn', userId: alice.id });
    expect((signIns[0]!.application as { id: string }).id).to.equal(app.id);
    expect(JSON.stringify(signIns[0])).not.to.match(/passwordDigest|correct horse/);
  });

  it("gives a public (SPA) client a JWT for an API with the scopes the user's roles grant, without consent", async () => {
    const spa = await createApplication(running, { type: 'SPA', oidcClientMetadata: { redirectUris: [REDIRECT] } });
    const config = await configFor(spa);
    const { url, verifier } = await authorize(config, {
      scope: 'openid orders:read orders:write',
      resource: INDICATOR,
    });
    const browser = new Browser();
    const login = await browser.follow(url.href, REDIRECT);
    const callback = await browser.submit(
      formAction(await login.res.text()),
      { identifier: 'alice', password: 'correct horse battery' },
      REDIRECT,
    );
    expect(callback.url.startsWith(REDIRECT), 'no consent screen for a first-party app').to.equal(true);
    const tokens = await client.authorizationCodeGrant(
      config,
      new URL(callback.url),
      { pkceCodeVerifier: verifier, expectedState: 'xyz' },
      {
        resource: INDICATOR,
      },
    );
    const { payload, protectedHeader } = await jwtVerify(
      tokens.access_token,
      createRemoteJWKSet(new URL(`${running.baseUrl}/oidc/jwks`)),
      {
        audience: INDICATOR,
        issuer: `${running.baseUrl}/oidc`,
      },
    );
    expect(protectedHeader.typ).to.equal('at+jwt');
    expect(payload.sub).to.equal(alice.id);
    expect(payload.scope).to.equal('orders:read');
  });

  it('refuses an authorization request without PKCE', async () => {
    const app = await createApplication(running, {
      type: 'Traditional',
      oidcClientMetadata: { redirectUris: [REDIRECT] },
    });
    const url = new URL(`${running.baseUrl}/oidc/auth`);
    url.search = new URLSearchParams({
      client_id: app.id,
      response_type: 'code',
      scope: 'openid',
      redirect_uri: REDIRECT,
    }).toString();
    const res = await fetch(url, { redirect: 'manual' });
    const location = new URL(res.headers.get('location')!);
    expect(location.searchParams.get('error')).to.equal('invalid_request');
    expect(location.searchParams.get('error_description')).to.match(/PKCE/);
  });

  it('does not let a suspended user sign in', async () => {
    await createUser(running, [], { username: 'mallory', isSuspended: true }, 'correct horse battery');
    const app = await createApplication(running, { type: 'SPA', oidcClientMetadata: { redirectUris: [REDIRECT] } });
    const { url } = await authorize(await configFor(app), { scope: 'openid' });
    const browser = new Browser();
    const login = await browser.follow(url.href, REDIRECT);
    const refused = await browser.submit(
      formAction(await login.res.text()),
      { identifier: 'mallory', password: 'correct horse battery' },
      REDIRECT,
    );
    expect(refused.res.status).to.equal(401);
    expect(await refused.res.text()).to.include('suspended');
  });

  it('answers a stale interaction with a 400 page, not an error', async () => {
    const res = await fetch(`${running.baseUrl}/interaction/does-not-exist`);
    expect(res.status).to.equal(400);
  });
});
