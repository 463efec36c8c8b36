import { expect } from 'chai';
import * as client from 'openid-client';
import { Browser } from '../support/browser.ts';
import { createApplication, createUser } from '../support/fixtures.ts';
import { startService, type RunningService } from '../support/service.ts';
import { REDIRECT, signInForm } from '../support/sign-in-form.ts';
import { newId } from '../../lib/ids.ts';

const PASSWORD = 'Correct-Horse-7';
const ORGANIZATIONS_SCOPE = 'urn:logto:scope:organizations';
const ORGANIZATIONS_RESOURCE = 'urn:logto:resource:organizations';

/**
 * What Logto's SDKs rely on at sign-in, over HTTP: its authorization parameters on the pages, consent for third-party
 * applications only, organization tokens refused outside the user's organizations or without their scope, the
 * indicators the service keeps for itself, and no picture that is not an http(s) URL.
 */
describe('Logto compatibility: sign-in parameters, consent and organization tokens', () => {
  let running: RunningService;

  before(async () => {
    running = await startService();
  });
  after(() => running.close());

  async function clientOf(app: { id: string; secret?: string }) {
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

  /** An authorization request with `params`, followed in a fresh browser up to the first page (or `stopAt`). */
  async function land(config: client.Configuration, params: Record<string, string>, stopAt = REDIRECT) {
    const verifier = client.randomPKCECodeVerifier();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT,
      scope: 'openid',
      state: 'state-1',
      code_challenge_method: 'S256',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      ...params,
    });
    const browser = new Browser();
    const landed = await browser.follow(url.href, stopAt);
    return { browser, verifier, url: landed.url, status: landed.res.status, html: await landed.res.text() };
  }

  /** Signs `username` in with the password form of the page `land` reached; where the browser ends up. */
  async function signIn(landed: Awaited<ReturnType<typeof land>>, username: string) {
    const form = signInForm(landed.html, landed.url);
    const done = await landed.browser.submit(
      form.action,
      { ...form.hidden, identifier: username, password: PASSWORD },
      REDIRECT,
    );
    return { url: done.url, html: done.url.startsWith(REDIRECT) ? '' : await done.res.text() };
  }

  it('opens the page first_screen names, fills in login_hint, narrows to the identifier asked, and goes straight to a connector', async () => {
    const config = await clientOf(
      await createApplication(running, { type: 'SPA', oidcClientMetadata: { redirectUris: [REDIRECT] } }),
    );
    const register = await land(config, { first_screen: 'register' });
    expect(new URL(register.url).pathname).to.match(/\/sign-up$/);
    expect(register.html).to.include('Create your');
    expect(new URL((await land(config, { first_screen: 'reset_password' })).url).pathname).to.match(
      /\/forgot-password$/,
    );
    expect(
      new URL((await land(config, { interaction_mode: 'signUp' })).url).pathname,
      'the older interaction_mode',
    ).to.match(/\/sign-up$/);
    const plain = await land(config, {});
    expect(new URL(plain.url).pathname).to.match(/\/interaction\/[^/]+$/);

    const hinted = await land(config, { login_hint: 'ada@example.com' });
    expect(hinted.html).to.match(/<input id="password-identifier"[^>]*value="ada@example.com"/);
    expect(plain.html).to.not.include('value="ada@example.com"');

    expect(plain.html).to.include('Username or email').and.include('sign-in code by email');
    const usernameOnly = await land(config, { identifier: 'username' });
    expect(usernameOnly.html).to.include('>Username</label>');
    expect(usernameOnly.html, 'no email methods when only the username is asked for').to.not.include(
      'sign-in code by email',
    );

    const connector = await running.request('/api/connectors', {
      method: 'POST',
      json: {
        connectorId: 'oauth2',
        metadata: { target: 'acme-sso', name: { en: 'Acme' } },
        config: {
          clientId: 'downstream',
          clientSecret: 'secret',
          authorizationEndpoint: 'http://127.0.0.1:9/authorize',
          tokenEndpoint: 'http://127.0.0.1:9/token',
          userInfoEndpoint: 'http://127.0.0.1:9/me',
        },
      },
    });
    expect(connector.status).to.equal(201);
    const direct = await land(config, { direct_sign_in: 'social:acme-sso' }, 'http://127.0.0.1:9/authorize');
    const sent = new URL(direct.url);
    expect(`${sent.origin}${sent.pathname}`, 'the browser goes to the provider without a page between').to.equal(
      'http://127.0.0.1:9/authorize',
    );
    expect(sent.searchParams.get('client_id')).to.equal('downstream');
  });

  it("asks a third-party application's user for consent, whatever prompt says, and a first-party one's never", async () => {
    const username = `consent_${newId(6).toLowerCase()}`;
    await createUser(running, [], { username }, PASSWORD);
    const third = await createApplication(running, {
      type: 'Traditional',
      isThirdParty: true,
      oidcClientMetadata: { redirectUris: [REDIRECT] },
    });
    const asked = await signIn(await land(await clientOf(third), { prompt: 'login' }), username);
    expect(asked.url.startsWith(REDIRECT), 'a consent page, not the callback').to.equal(false);
    expect(asked.html).to.include('asks for access');
    const first = await createApplication(running, {
      type: 'Traditional',
      oidcClientMetadata: { redirectUris: [REDIRECT] },
    });
    const back = await signIn(await land(await clientOf(first), { prompt: 'login consent' }), username);
    expect(back.url.startsWith(REDIRECT)).to.equal(true);
  });

  describe('organization tokens on the refresh-token grant', () => {
    let app: { id: string; secret?: string };
    let config: client.Configuration;
    let username: string;
    let member: string;
    let outside: string;

    before(async () => {
      app = await createApplication(running, { type: 'Traditional', oidcClientMetadata: { redirectUris: [REDIRECT] } });
      config = await clientOf(app);
      username = `member_${newId(6).toLowerCase()}`;
      const user = await createUser(running, [], { username }, PASSWORD);
      const [joined, other] = await Promise.all(
        ['Joined', 'Other'].map(async (name) => {
          const res = await running.request('/api/organizations', {
            method: 'POST',
            json: { name: `${name} ${newId(4)}` },
          });
          return ((await res.json()) as { id: string }).id;
        }),
      );
      expect(
        (await running.request(`/api/organizations/${joined}/users`, { method: 'POST', json: { userIds: [user.id] } }))
          .status,
      ).to.equal(201);
      [member, outside] = [joined!, other!];
    });

    async function refreshToken(scope: string, resource?: string): Promise<string> {
      const landed = await land(config, { scope, prompt: 'consent', ...(resource && { resource }) });
      const done = await signIn(landed, username);
      expect(done.url.startsWith(REDIRECT), done.html.slice(0, 300)).to.equal(true);
      const tokens = await client.authorizationCodeGrant(config, new URL(done.url), {
        pkceCodeVerifier: landed.verifier,
        expectedState: 'state-1',
      });
      expect(tokens.refresh_token).to.be.a('string');
      return tokens.refresh_token!;
    }

    const refresh = async (token: string, organizationId: string) => {
      const res = await fetch(`${running.baseUrl}/oidc/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${app.id}:${app.secret}`).toString('base64')}`,
        },
        body: new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: token,
          organization_id: organizationId,
        }),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };

    it("issues one for an organization of the user and refuses another (403 access_denied, Logto's oidc.access_denied)", async () => {
      const token = await refreshToken(`openid offline_access ${ORGANIZATIONS_SCOPE}`, ORGANIZATIONS_RESOURCE);
      const refused = await refresh(token, outside);
      expect(refused.status).to.equal(403);
      expect(refused.body).to.include({ error: 'access_denied', code: 'oidc.access_denied' });
      const issued = await refresh(token, member);
      expect(issued.status, JSON.stringify(issued.body)).to.equal(200);
      expect(issued.body.access_token).to.be.a('string');
    });

    it(`refuses a refresh token granted without ${ORGANIZATIONS_SCOPE} (insufficient_scope), even for a member`, async () => {
      const token = await refreshToken('openid offline_access');
      const refused = await refresh(token, member);
      expect(refused.status).to.be.within(400, 403);
      expect(refused.body).to.include({ error: 'insufficient_scope', code: 'oidc.insufficient_scope' });
      const still = await fetch(`${running.baseUrl}/oidc/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${app.id}:${app.secret}`).toString('base64')}`,
        },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: token }),
      });
      expect(still.status, 'the refusal spent nothing: the refresh token still works').to.equal(200);
    });
  });

  it("takes Logto's one-factor methods whatever isPasswordPrimary says: it only orders two factors", async () => {
    const before = (await (await running.request('/api/sign-in-exp')).json()) as { signIn: unknown };
    const methods = ['username', 'email'].map((identifier) => ({
      identifier,
      password: true,
      verificationCode: false,
      isPasswordPrimary: false,
    }));
    const patched = await running.request('/api/sign-in-exp', { method: 'PATCH', json: { signIn: { methods } } });
    expect(patched.status, await patched.clone().text()).to.equal(200);
    try {
      const config = await clientOf(
        await createApplication(running, { type: 'SPA', oidcClientMetadata: { redirectUris: [REDIRECT] } }),
      );
      const page = await land(config, {});
      expect(page.html, 'the one factor is offered').to.include('id="password-password"');
      expect(page.html).to.not.include('sign-in code by email');
    } finally {
      await running.request('/api/sign-in-exp', { method: 'PATCH', json: { signIn: before.signIn } });
    }
  });

  it("keeps the organizations resource and Logto's management indicator off API resources (400 guard.invalid_input)", async () => {
    for (const indicator of [ORGANIZATIONS_RESOURCE, 'https://default.logto.app/api']) {
      const res = await running.request('/api/resources', { method: 'POST', json: { name: 'Taken', indicator } });
      expect(res.status, indicator).to.equal(400);
      const body = (await res.json()) as { code: string };
      expect(body.code).to.equal('guard.invalid_input');
      expect(JSON.stringify(body)).to.include('reserved');
    }
  });

  it('gives relying parties no picture that is not an http(s) URL, whatever was stored', async () => {
    const username = `pic_${newId(6).toLowerCase()}`;
    const user = await createUser(running, [], { username }, PASSWORD);
    const app = await createApplication(running, {
      type: 'Traditional',
      oidcClientMetadata: { redirectUris: [REDIRECT] },
    });
    const config = await clientOf(app);
    const claimsWith = async (avatar: string) => {
      // Stored before the rule, or imported: the API itself refuses such an avatar.
      await running.service.records.users.update(user.id, { avatar });
      const landed = await land(config, { scope: 'openid profile' });
      const done = await signIn(landed, username);
      const tokens = await client.authorizationCodeGrant(config, new URL(done.url), {
        pkceCodeVerifier: landed.verifier,
        expectedState: 'state-1',
      });
      return { idToken: tokens.claims()!, userinfo: await client.fetchUserInfo(config, tokens.access_token, user.id) };
    };
    const script = await claimsWith('javascript:alert(document.domain)');
    expect(script.idToken).to.not.have.property('picture');
    expect(script.userinfo).to.not.have.property('picture');
    const fine = await claimsWith('https://cdn.example.com/ada.png');
    expect(fine.idToken).to.include({ picture: 'https://cdn.example.com/ada.png' });
    expect(fine.userinfo).to.include({ picture: 'https://cdn.example.com/ada.png' });
  });
});
