import { logtoClient, startAppPages, titledPage, type AppPages } from '../support/app-pages.ts';
import { expect } from 'chai';
import { LogtoRequestError, UserScope } from '@logto/node';
import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import { freshPage, screenshot, useChromium } from '../support/chromium.ts';
import { startService, type RunningService } from '../support/service.ts';
import {
  apiJson,
  createApplication,
  createResource,
  createRole,
  createUser,
  subjectToken,
  tokenRequest,
} from '../support/fixtures.ts';
import { newId } from '../../lib/ids.ts';

const INDICATOR = 'https://orders.example.com';
const PASSWORD = 'Correct-Horse-7';

/** The application's own pages: where the browser lands after sign-in and after sign-out. */
function appPages() {
  return startAppPages((req, res) =>
    titledPage(res, req.url?.startsWith('/callback') ? 'Back at Acme' : 'Signed out of Acme'),
  );
}

/**
 * A Logto customer's web app on `@logto/node`, unchanged but for its endpoint: a Chromium sign-in with organizations,
 * the user's claims and userinfo, an API token, organization tokens (and a refusal outside the user's organizations),
 * the userinfo token as an actor token, and sign-out.
 */
describe('@logto/node against the service (Chromium)', () => {
  const chromium = useChromium();
  let running: RunningService;
  let pages: AppPages;

  before(async () => {
    running = await startService();
    pages = await appPages();
  });
  after(async () => {
    await pages?.close();
    await running?.close();
  });

  const json = (path: string, method: string, body?: unknown) => apiJson(running, path, method, body);

  it('signs in with organizations, reads userinfo, gets API and organization tokens, and signs out', async () => {
    const orders = await createResource(running, INDICATOR, ['read:orders', 'write:orders']);
    const role = await createRole(running, [orders.scopes['read:orders']!.id]);
    const username = `ada_${newId(6).toLowerCase()}`;
    const user = await createUser(running, [role.id], { username, primaryEmail: `${username}@example.com` }, PASSWORD);
    const read = await json('/api/organization-scopes', 'POST', { name: 'read:members' });
    const invite = await json('/api/organization-scopes', 'POST', { name: 'invite:members' });
    const admin = await json('/api/organization-roles', 'POST', {
      name: 'admin',
      organizationScopeIds: [read.id, invite.id],
    });
    const viewer = await json('/api/organization-roles', 'POST', { name: 'viewer', organizationScopeIds: [read.id] });
    const [acme, globex, initech] = await Promise.all(
      ['Acme', 'Globex', 'Initech'].map((name) => json('/api/organizations', 'POST', { name })),
    );
    for (const [organization, organizationRole] of [
      [acme, admin],
      [globex, viewer],
    ]) {
      await json(`/api/organizations/${organization.id}/users`, 'POST', { userIds: [user.id] });
      await json(`/api/organizations/${organization.id}/users/${user.id}/roles`, 'POST', {
        organizationRoleIds: [organizationRole.id],
      });
    }
    const app = await createApplication(running, {
      type: 'Traditional',
      name: 'Acme Web',
      customClientMetadata: { allowTokenExchange: true },
      oidcClientMetadata: {
        redirectUris: [`${pages.origin}/callback`],
        postLogoutRedirectUris: [`${pages.origin}/signed-out`],
      },
    });

    const { logto, navigated } = logtoClient({
      endpoint: running.baseUrl,
      appId: app.id,
      appSecret: app.secret!,
      resources: [INDICATOR],
      scopes: [
        UserScope.Email,
        UserScope.Organizations,
        UserScope.OrganizationRoles,
        'read:orders',
        'read:members',
        'invite:members',
      ],
    });

    const { page, context } = await freshPage(chromium.browser());
    try {
      await logto.signIn(`${pages.origin}/callback`);
      expect(new URL(navigated()).searchParams.get('prompt'), 'the SDK asks for consent').to.equal('consent');
      await page.goto(navigated());
      await page.getByRole('textbox', { name: /username/i }).fill(username);
      await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      // A first-party application: no consent page, whatever prompt says.
      await page.waitForURL((url) => url.href.startsWith(`${pages.origin}/callback`));
      await logto.handleSignInCallback(page.url());

      const claims = await logto.getIdTokenClaims();
      expect(claims).to.include({ sub: user.id, username, email: `${username}@example.com` });
      expect(claims.organizations).to.have.members([acme.id, globex.id]);
      expect(claims.organization_roles).to.have.members([`${acme.id}:admin`, `${globex.id}:viewer`]);

      const userInfo = await logto.fetchUserInfo();
      expect(userInfo).to.include({ sub: user.id, username, preferred_username: username });
      expect(userInfo.organizations).to.have.members([acme.id, globex.id]);

      const jwks = createRemoteJWKSet(new URL(`${running.baseUrl}/oidc/jwks`));
      const issuer = `${running.baseUrl}/oidc`;
      const apiToken = await logto.getAccessToken(INDICATOR);
      expect((await jwtVerify(apiToken, jwks, { issuer, audience: INDICATOR })).payload).to.include({
        sub: user.id,
        scope: 'read:orders',
      });

      const acmeToken = (
        await jwtVerify(await logto.getOrganizationToken(acme.id), jwks, {
          issuer,
          audience: `urn:logto:organization:${acme.id}`,
        })
      ).payload;
      expect(String(acmeToken.scope).split(' ')).to.have.members(['read:members', 'invite:members']);
      expect(decodeJwt(await logto.getOrganizationToken(globex.id))).to.include({
        aud: `urn:logto:organization:${globex.id}`,
        scope: 'read:members',
      });
      const outside = await logto.getOrganizationToken(initech.id).catch((error: unknown) => error);
      expect(outside).to.be.instanceOf(LogtoRequestError);
      expect((outside as LogtoRequestError).code).to.equal('oidc.access_denied');

      // The token of the code exchange is the userinfo one: opaque, and good as an actor token.
      const userinfoToken = await logto.getAccessToken();
      expect(userinfoToken.split('.')).to.have.length(1);
      const impersonated = await createUser(running);
      const exchanged = await tokenRequest(
        running,
        {
          grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
          subject_token: await subjectToken(running, impersonated.id),
          subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
          resource: INDICATOR,
          actor_token: userinfoToken,
          actor_token_type: 'urn:ietf:params:oauth:token-type:access_token',
        },
        app,
      );
      expect(exchanged.status, JSON.stringify(exchanged.body)).to.equal(200);
      expect(decodeJwt(String(exchanged.body.access_token))).to.deep.include({
        sub: impersonated.id,
        act: { sub: user.id },
      });

      const refreshToken = (await logto.getRefreshToken())!;
      await logto.signOut(`${pages.origin}/signed-out`);
      await page.goto(navigated());
      await page.getByRole('button', { name: 'Yes, sign me out' }).click();
      await page.waitForURL((url) => url.href.startsWith(`${pages.origin}/signed-out`));
      expect(await logto.isAuthenticated()).to.equal(false);
      const revoked = await tokenRequest(running, { grant_type: 'refresh_token', refresh_token: refreshToken }, app);
      expect(revoked.body.error, 'the SDK revoked the refresh token').to.equal('invalid_grant');
    } finally {
      await screenshot(page, 'logto-sdk-signed-out');
      await context.close();
    }
  });
});
