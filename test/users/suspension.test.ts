import { expect } from 'chai';
import * as client from 'openid-client';
import { Browser, formAction } from '../support/browser.ts';
import { fixtures, ok, startHarness, unique, type Harness } from '../support/management/harness.ts';

const REDIRECT = 'http://127.0.0.1:9/callback';

describe('suspension through a real sign-in', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  /** Signs the user in through the sign-in page (a first-party app asks for no consent); returns the tokens. */
  async function signIn(config: client.Configuration, identifier: string, password: string) {
    const verifier = client.randomPKCECodeVerifier();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT,
      scope: 'openid offline_access',
      prompt: 'consent',
      state: 's',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    const browser = new Browser();
    const page = await (await browser.follow(url.href, REDIRECT)).res.text();
    const signedIn = await browser.submit(formAction(page), { identifier, password }, REDIRECT);
    if (!signedIn.url.startsWith(REDIRECT)) return { refused: signedIn.res.status };
    const tokens = await client.authorizationCodeGrant(config, new URL(signedIn.url), {
      pkceCodeVerifier: verifier,
      expectedState: 's',
    });
    return { tokens };
  }

  it('revokes the refresh token for good and refuses sign-in until reinstated', async () => {
    const app = await ok(
      h.api('POST', '/applications', {
        name: unique('web'),
        type: 'Traditional',
        oidcClientMetadata: { redirectUris: [REDIRECT] },
      }),
    );
    const config = await client.discovery(new URL(`${h.running.baseUrl}/oidc`), app.id, app.secret, undefined, {
      execute: [client.allowInsecureRequests],
    });
    const user = await fixtures(h).user({ password: 'correct horse battery' });

    const first = await signIn(config, user.username, 'correct horse battery');
    expect(first.tokens?.refresh_token).to.be.a('string');
    await client.refreshTokenGrant(config, first.tokens!.refresh_token!);

    await ok(h.api('PATCH', `/users/${user.id}/is-suspended`, { isSuspended: true }));
    const refresh = await client
      .refreshTokenGrant(config, first.tokens!.refresh_token!)
      .catch((error: { error?: string }) => error);
    expect((refresh as { error?: string }).error).to.equal('invalid_grant');
    expect((await signIn(config, user.username, 'correct horse battery')).refused).to.be.within(400, 499);

    await ok(h.api('PATCH', `/users/${user.id}/is-suspended`, { isSuspended: false }));
    const stale = await client
      .refreshTokenGrant(config, first.tokens!.refresh_token!)
      .catch((error: { error?: string }) => error);
    expect((stale as { error?: string }).error, 'the revoked refresh token stays revoked').to.equal('invalid_grant');
    expect((await signIn(config, user.username, 'correct horse battery')).tokens?.access_token).to.be.a('string');
  });
});
