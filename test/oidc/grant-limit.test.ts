import { expect } from 'chai';
import * as client from 'openid-client';
import { startService, type RunningService } from '../support/service.ts';
import { createApplication, createUser } from '../support/fixtures.ts';
import { Browser, formAction } from '../support/browser.ts';

const REDIRECT = 'http://127.0.0.1:9/callback';

describe('maxAllowedGrants', () => {
  let running: RunningService;
  let events: Array<Record<string, unknown>>;
  before(async () => {
    running = await startService();
    events = [];
    running.service.core.bus.subscribe(async (published) => {
      events.push(...published.filter((event) => event.event === 'Grant.LimitExceeded'));
    });
  });
  after(() => running.close());

  /** A sign-in in a fresh browser (a new session, so a new grant); returns its access token. */
  async function signIn(appId: string, username: string): Promise<string> {
    const config = await client.discovery(new URL(`${running.baseUrl}/oidc`), appId, undefined, client.None(), {
      execute: [client.allowInsecureRequests],
    });
    const verifier = client.randomPKCECodeVerifier();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT,
      scope: 'openid',
      state: 's',
      code_challenge_method: 'S256',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
    });
    const browser = new Browser();
    const login = await browser.follow(url.href, REDIRECT);
    const done = await browser.submit(
      formAction(await login.res.text()),
      { identifier: username, password: 'a good password' },
      REDIRECT,
    );
    const tokens = await client.authorizationCodeGrant(config, new URL(done.url), {
      pkceCodeVerifier: verifier,
      expectedState: 's',
    });
    return tokens.access_token;
  }

  const userinfo = async (token: string) =>
    (await fetch(`${running.baseUrl}/oidc/me`, { headers: { authorization: `Bearer ${token}` } })).status;

  it('revokes the oldest grants past the limit, with their tokens, and publishes Grant.LimitExceeded', async () => {
    const app = await createApplication(running, {
      type: 'SPA',
      oidcClientMetadata: { redirectUris: [REDIRECT] },
      customClientMetadata: { maxAllowedGrants: 2 },
    });
    const user = await createUser(running, [], {}, 'a good password');
    const first = await signIn(app.id, String(user.username));
    const second = await signIn(app.id, String(user.username));
    expect(events).to.have.length(0);
    const third = await signIn(app.id, String(user.username));

    expect(await userinfo(first), 'the oldest grant and its token are gone').to.equal(401);
    expect(await userinfo(second)).to.equal(200);
    expect(await userinfo(third)).to.equal(200);
    expect(events).to.have.length(1);
    expect(events[0]).to.include({
      userId: user.id,
      applicationId: app.id,
      maxAllowedGrants: 2,
      preRevocationActiveGrantCount: 3,
    });
    expect(events[0]!.revokedGrantIds).to.have.length(1);
  });

  it('leaves applications without a limit alone', async () => {
    const app = await createApplication(running, { type: 'SPA', oidcClientMetadata: { redirectUris: [REDIRECT] } });
    const user = await createUser(running, [], {}, 'a good password');
    const tokens = [];
    for (let i = 0; i < 3; i += 1) tokens.push(await signIn(app.id, String(user.username)));
    for (const token of tokens) expect(await userinfo(token)).to.equal(200);
    expect(events.filter((event) => event.applicationId === app.id)).to.have.length(0);
  });
});
