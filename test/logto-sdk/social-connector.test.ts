import { expect } from 'chai';
import { createManagementApi } from '@logto/api/management';
import { UserScope } from '@logto/node';
import type { Page } from 'playwright-core';
import { logtoClient, startAppPages, titledPage, type AppPages } from '../support/app-pages.ts';
import { freshPage, screenshot, useChromium } from '../support/chromium.ts';
import { logtoOidcConfig, startFederation, type Federation, type UpstreamUser } from '../support/connectors.ts';
import { ADMIN } from '../support/service.ts';

const TARGET = 'logto-oidc';

/**
 * A Logto customer's setup, with Logto's own clients unchanged but for their endpoint: `@logto/api` creates the social
 * connector from Logto's OIDC connector config as its console exports it (the upstream being a second instance of the
 * service) and the web app's application; `@logto/node` signs in through that connector in Chromium, from the sign-in
 * page's button and, with `directSignIn`, straight to the upstream.
 */
describe('@logto/node and @logto/api through a connector exported from Logto (Chromium)', () => {
  const chromium = useChromium();
  let f: Federation;
  let pages: AppPages;

  before(async () => {
    f = await startFederation();
    pages = await startAppPages((req, res) =>
      titledPage(res, req.url?.startsWith('/callback') ? 'Back at Acme' : 'Acme'),
    );
  });
  after(async () => {
    await pages?.close();
    await f?.close();
  });

  const management = () =>
    createManagementApi('default', {
      clientId: ADMIN.id,
      clientSecret: ADMIN.secret,
      baseUrl: f.h.running.baseUrl,
    }).apiClient;

  /** Signs in at the upstream instance's own page as `user`, and waits to be back at the app. */
  async function atUpstream(page: Page, user: UpstreamUser): Promise<void> {
    await page.waitForURL((url) => url.href.startsWith(f.upstream.baseUrl));
    await page.getByRole('textbox', { name: /username/i }).fill(user.username);
    await page.getByLabel('Password', { exact: true }).fill(user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => url.href.startsWith(`${pages.origin}/callback`));
  }

  it("registers through the connector from the sign-in page's button, then signs in again with directSignIn", async () => {
    const api = management();
    const connector = await api.POST('/api/connectors', {
      body: {
        connectorId: 'oidc',
        metadata: { target: TARGET, name: { en: 'Logto OIDC' }, logo: './logo.svg', logoDark: null },
        config: logtoOidcConfig(f),
      },
    });
    expect(connector.response.ok, JSON.stringify(connector.error)).to.equal(true);
    expect(connector.data).to.include({ target: TARGET });

    const app = await api.POST('/api/applications', {
      body: {
        name: 'Acme Web',
        type: 'Traditional',
        // Logto's generated types describe redirect URIs loosely (not as strings): the payload is Logto's all the same.
        oidcClientMetadata: {
          redirectUris: [`${pages.origin}/callback`],
          postLogoutRedirectUris: [],
        } as never,
      },
    });
    expect(app.response.status, JSON.stringify(app.error)).to.equal(201);

    const person = await f.upstreamUser(undefined, 'Grace Upstream');
    const config = {
      endpoint: f.h.running.baseUrl,
      appId: app.data!.id,
      appSecret: app.data!.secret,
      scopes: [UserScope.Email, UserScope.Profile],
    };

    const first = logtoClient(config);
    const { page, context } = await freshPage(chromium.browser());
    let userId: string;
    try {
      await first.logto.signIn(`${pages.origin}/callback`);
      await page.goto(first.navigated());
      const button = page.getByRole('link', { name: 'Continue with Logto OIDC' });
      await button.waitFor();
      await screenshot(page, 'logto-sdk-social-connector-sign-in-page');
      await button.click();
      await atUpstream(page, person);
      await first.logto.handleSignInCallback(page.url());

      const claims = await first.logto.getIdTokenClaims();
      expect(claims).to.include({ name: 'Grace Upstream', email: person.email });
      userId = claims.sub;
      const userInfo = await first.logto.fetchUserInfo();
      expect(userInfo).to.include({ sub: userId, name: 'Grace Upstream', email: person.email });
    } finally {
      await screenshot(page, 'logto-sdk-social-connector');
      await context.close();
    }

    const found = await api.GET('/api/users', {
      params: { query: { search_params: { search: `%${person.email}%` } } },
      querySerializer: { object: { style: 'form', explode: true } },
    });
    expect(found.data!.map((one) => one.id)).to.deep.equal([userId]);
    const user = await api.GET('/api/users/{userId}', { params: { path: { userId } } });
    expect(user.data).to.include({ primaryEmail: person.email, name: 'Grace Upstream' });
    expect(user.data!.identities[TARGET]).to.deep.include({ userId: person.id });

    // Straight to the upstream, no button: the same identity signs in to the same user.
    const again = logtoClient(config);
    const second = await freshPage(chromium.browser());
    try {
      await again.logto.signIn({
        redirectUri: `${pages.origin}/callback`,
        directSignIn: { method: 'social', target: TARGET },
      });
      await second.page.goto(again.navigated());
      await atUpstream(second.page, person);
      await again.logto.handleSignInCallback(second.page.url());
      expect(await again.logto.getIdTokenClaims()).to.include({ sub: userId, email: person.email });
    } finally {
      await screenshot(second.page, 'logto-sdk-social-connector-direct');
      await second.context.close();
    }
  });
});
