import { expect } from 'chai';
import { json, uniqueName } from '../support/experience.ts';
import { totpCode } from '../support/mfa.ts';
import { skipRequiredIdentifiers, startFederation, type Federation } from '../support/connectors.ts';

describe('Sign-in pages: continue with a social or enterprise connector (a second instance as the provider)', () => {
  let f: Federation;
  let connectorId: string;

  before(async () => {
    f = await startFederation();
    connectorId = (await f.socialConnector('oidc', 'upstream-pages')).id;
  });
  after(() => f.close());

  /** Opens the sign-in page of a new authorization request: the client, the interaction uid and the page. */
  async function signInPage() {
    const client = f.h.client();
    const uid = await client.open(f.h.app);
    const page = await client.browser.request(`${f.h.running.baseUrl}/interaction/${uid}`);
    return { client, uid, html: await page.text() };
  }

  /** Follows "Continue with …" to the provider, signs in there, and comes back through the callback. */
  async function throughProvider(
    client: Awaited<ReturnType<typeof signInPage>>['client'],
    start: string,
    person: Awaited<ReturnType<Federation['upstreamUser']>>,
  ) {
    const toProvider = await client.browser.follow(start, f.upstream.baseUrl);
    expect(toProvider.url.startsWith(f.upstream.baseUrl), `went to ${toProvider.url}`).to.equal(true);
    // Another cookie jar for the provider: the test browser keys cookies by name only, and both services name
    // theirs alike (a real browser keeps them apart by path; the Chromium test runs the flow in one browser).
    const callback = await f.signInUpstream(toProvider.url, person, `${f.h.running.baseUrl}/interaction/callback/`);
    // The callback answers a page that moves on by itself (Refresh), as a browser does.
    const landed = await client.browser.request(callback.href);
    expect(landed.status).to.equal(200);
    const refresh = /^0;url=(.+)$/.exec(landed.headers.get('refresh') ?? '');
    expect(refresh, 'a Refresh header').to.not.equal(null);
    return client.browser.follow(refresh![1]!, 'http://127.0.0.1:9/');
  }

  it('offers the connectors; "Continue with" registers a new account through the provider', async () => {
    const { client, uid, html } = await signInPage();
    expect(html).to.include('Continue with Upstream oidc');
    expect(html).to.include(`/interaction/${uid}/social/${connectorId}`);
    const signUp = await (await client.browser.request(`${f.h.running.baseUrl}/interaction/${uid}/sign-up`)).text();
    expect(signUp).to.include('Continue with Upstream oidc');
    const person = await f.upstreamUser(undefined, 'Page Person');
    const back = await throughProvider(
      client,
      `${f.h.running.baseUrl}/interaction/${uid}/social/${connectorId}`,
      person,
    );
    const userId = (await client.redeem(back.url)).claims()!.sub;
    const user = await json(f.h.running.request(`/api/users/${userId}`));
    expect(user).to.include({ primaryEmail: person.email, name: 'Page Person' });
    expect(user.identities['upstream-pages'].userId).to.equal(person.id);
    await f.h.delivery('User.Created', (payload) => payload.data.id === userId);
    await f.h.delivery('PostRegister', (payload) => payload.userId === userId);
  });

  it('asks a registration through the provider for the username sign-up requires (skipRequiredIdentifiers off), then signs it in', async () => {
    await f.h.running.request('/api/sign-in-exp', { method: 'PATCH', json: { socialSignIn: {} } });
    try {
      const { client, uid } = await signInPage();
      const person = await f.upstreamUser(undefined, 'Profile Person');
      const step = await throughProvider(
        client,
        `${f.h.running.baseUrl}/interaction/${uid}/social/${connectorId}`,
        person,
      );
      expect(step.url).to.equal(`${f.h.running.baseUrl}/interaction/${uid}/profile?missing=username`);
      const html = await step.res.text();
      expect(html).to.include('<h1>Complete your account</h1>');
      expect(html).to.include('name="username"');
      expect(html, 'the identity stands for a password').not.to.include('name="password"');
      const action = `${f.h.running.baseUrl}/interaction/${uid}/profile?missing=username`;
      const refused = await client.browser.submit(action, { username: '1-not-a-username' }, 'http://127.0.0.1:9/');
      expect(refused.res.status).to.equal(400);
      const username = `profile_${Math.random().toString(36).slice(2, 8)}`;
      const done = await client.browser.submit(action, { username }, 'http://127.0.0.1:9/');
      const userId = (await client.redeem(done.url)).claims()!.sub;
      const user = await json(f.h.running.request(`/api/users/${userId}`));
      expect(user).to.include({ username, primaryEmail: person.email, name: 'Profile Person', hasPassword: false });
      expect(user.identities['upstream-pages'].userId).to.equal(person.id);
    } finally {
      await skipRequiredIdentifiers(f.h.running);
    }
  });

  it('asks before linking to the account with the same verified email, then signs in to it', async () => {
    const person = await f.upstreamUser();
    const existing = await json(
      f.h.running.request('/api/users', {
        method: 'POST',
        json: { primaryEmail: person.email, username: uniqueName('pg') },
      }),
    );
    const { client, uid } = await signInPage();
    const asked = await throughProvider(
      client,
      `${f.h.running.baseUrl}/interaction/${uid}/social/${connectorId}`,
      person,
    );
    const html = await asked.res.text();
    expect(asked.res.status, html).to.equal(200);
    expect(html).to.include('Link and continue');
    expect(html).to.include(person.email);
    const action = /<form method="post" action="([^"]+\/link)"/.exec(html)![1]!;
    const linked = await client.browser.submit(action, {}, 'http://127.0.0.1:9/');
    expect((await client.redeem(linked.url)).claims()!.sub).to.equal(existing.id);
    const updated = await f.h.delivery('User.Data.Updated', (payload) => payload.data.id === existing.id);
    expect(updated.data.identities['upstream-pages'].userId).to.equal(person.id);
  });

  it('asks an account with an authenticator app for its code after the provider, then signs it in', async () => {
    const person = await f.upstreamUser();
    const first = await signInPage();
    const registered = await throughProvider(
      first.client,
      `${f.h.running.baseUrl}/interaction/${first.uid}/social/${connectorId}`,
      person,
    );
    const userId = (await first.client.redeem(registered.url)).claims()!.sub;
    const { secret } = await json(
      f.h.running.request(`/api/users/${userId}/mfa-verifications`, { method: 'POST', json: { type: 'Totp' } }),
    );

    const { client, uid } = await signInPage();
    const asked = await throughProvider(
      client,
      `${f.h.running.baseUrl}/interaction/${uid}/social/${connectorId}`,
      person,
    );
    expect(asked.url).to.equal(`${f.h.running.baseUrl}/interaction/${uid}/mfa`);
    const html = await asked.res.text();
    expect(asked.res.status, html).to.equal(200);
    expect(html).to.include('Authentication code');
    const signedIn = await client.browser.submit(
      `${f.h.running.baseUrl}/interaction/${uid}/mfa`,
      { code: totpCode(secret) },
      'http://127.0.0.1:9/',
    );
    expect((await client.redeem(signedIn.url)).claims()!.sub).to.equal(userId);
  });

  it('sends an email of an SSO domain typed in the password form to its provider, and joins the JIT organization', async () => {
    const sso = await json(
      f.h.running.request('/api/sso-connectors', {
        method: 'POST',
        json: {
          providerName: 'OIDC',
          connectorName: 'Gamma',
          domains: ['gamma.example.com'],
          branding: { displayName: 'Gamma SSO' },
          config: { clientId: f.client.id, clientSecret: f.client.secret, issuer: `${f.upstream.baseUrl}/oidc` },
        },
      }),
    );
    const organization = await json(
      f.h.running.request('/api/organizations', { method: 'POST', json: { name: uniqueName('org') } }),
    );
    await f.h.running.request(`/api/organizations/${organization.id}/jit/sso-connectors`, {
      method: 'POST',
      json: { ssoConnectorIds: [sso.id] },
    });
    const person = await f.upstreamUser(`${uniqueName('emp')}@gamma.example.com`);

    const { client, uid, html } = await signInPage();
    expect(html).to.include('Work email');
    const choice = await client.browser.submit(
      `${f.h.running.baseUrl}/interaction/${uid}/login`,
      { identifier: person.email, password: 'anything' },
      'http://127.0.0.1:9/',
    );
    expect(choice.res.status).to.equal(200);
    const page = await choice.res.text();
    expect(page).to.include('Continue with Gamma SSO');
    const back = await throughProvider(client, `${f.h.running.baseUrl}/interaction/${uid}/sso/${sso.id}`, person);
    const userId = (await client.redeem(back.url)).claims()!.sub;
    const membership = await f.h.delivery(
      'Organization.Membership.Updated',
      (payload) => payload.organizationId === organization.id,
    );
    expect(membership.addedUserIds).to.deep.equal([userId]);
  });

  it("refuses a callback with another state (401) or without the sign-in's cookie (400), with a page and no 500", async () => {
    const person = await f.upstreamUser();
    const { client, uid } = await signInPage();
    const toProvider = await client.browser.follow(
      `${f.h.running.baseUrl}/interaction/${uid}/social/${connectorId}`,
      f.upstream.baseUrl,
    );
    const callback = await f.signInUpstream(toProvider.url, person, `${f.h.running.baseUrl}/interaction/callback/`);
    const forged = new URL(callback);
    forged.searchParams.set('state', 'forged-state');
    const refused = await client.browser.request(forged.href);
    expect(refused.status).to.equal(401);
    expect(refused.headers.get('content-type')).to.match(/text\/html/);
    expect(await refused.text()).to.include('The sign-in at the provider did not complete');
    const strangers = await fetch(callback.href, { redirect: 'manual' });
    expect(strangers.status).to.equal(400);
    const unknownKind = await client.browser.request(`${f.h.running.baseUrl}/interaction/callback/saml?code=x`);
    expect(unknownKind.status).to.equal(400);
  });

  it('says so when no account has the identity and registration is off (404 page, nothing created)', async () => {
    const person = await f.upstreamUser();
    await f.h.signInExperience({ signInMode: 'SignIn' });
    try {
      const { client, uid } = await signInPage();
      const answer = await throughProvider(
        client,
        `${f.h.running.baseUrl}/interaction/${uid}/social/${connectorId}`,
        person,
      );
      expect(answer.res.status).to.equal(404);
      expect(await answer.res.text()).to.include('new accounts cannot be created here');
      const users = await json(f.h.running.request(`/api/users?search=${encodeURIComponent(person.email)}`));
      expect(users).to.deep.equal([]);
    } finally {
      await f.h.signInExperience({ signInMode: 'SignInAndRegister' });
    }
  });
});
