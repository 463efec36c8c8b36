import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { createApplication } from '../../support/fixtures.ts';
import { freshPage, screenshot, useChromium } from '../../support/chromium.ts';
import { startService, type RunningService } from '../../support/service.ts';
import { skipRequiredIdentifiers } from '../../support/connectors.ts';
import { startBrowserHarness, type BrowserHarness } from '../../support/browser/harness.ts';

describe('browser: continue with a social connector whose provider is a second instance of the service (Chromium)', () => {
  const chromium = useChromium();
  let upstream: RunningService;
  let h: BrowserHarness;

  before(async () => {
    upstream = await startService();
    h = await startBrowserHarness();
    await skipRequiredIdentifiers(h.running);
  });
  after(async () => {
    await h?.close();
    await upstream?.close();
  });

  /** Continues with the upstream connector and signs in there with an account that has the test password. */
  async function signInUpstream(page: Page, username: string): Promise<void> {
    await page.getByRole('link', { name: 'Continue with Upstream ID' }).click();
    await page.waitForURL((url) => url.href.startsWith(upstream.baseUrl));
    await page.getByRole('textbox', { name: /username/i }).fill(username);
    await page.getByLabel('Password', { exact: true }).fill('Correct-Horse-7');
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  it("signs up at the provider's page, gives the username sign-up requires, and comes back signed in, in one browser (User.Created, PostRegister)", async () => {
    // Logto's default: the registration through the provider is asked for what it lacks (skipRequiredIdentifiers off).
    await h.running.request('/api/sign-in-exp', { method: 'PATCH', json: { socialSignIn: {} } });
    const app = await createApplication(upstream, {
      type: 'Traditional',
      name: 'Acme Notes login',
      oidcClientMetadata: {
        redirectUris: [`${h.running.baseUrl}/interaction/callback/social`],
        postLogoutRedirectUris: [],
      },
    });
    const connector = await h.running.request('/api/connectors', {
      method: 'POST',
      json: {
        connectorId: 'oidc',
        metadata: { target: 'upstream', name: { en: 'Upstream ID' } },
        config: { clientId: app.id, clientSecret: app.secret, issuer: `${upstream.baseUrl}/oidc` },
      },
    });
    expect(connector.status).to.equal(201);
    const username = `browser_${Math.random().toString(36).slice(2, 8)}`;
    const email = `${username}@upstream.example.com`;
    const created = await upstream.request('/api/users', {
      method: 'POST',
      json: { username, primaryEmail: email, password: 'Correct-Horse-7', name: 'Browser Person' },
    });
    expect(created.status).to.equal(201);

    const { page, context } = await freshPage(chromium.browser());
    try {
      const flow = await h.rp.signIn(page);
      const continueWith = page.getByRole('link', { name: 'Continue with Upstream ID' });
      await continueWith.waitFor();
      expect(await page.getByRole('textbox', { name: 'Work email' }).count(), 'no SSO connector: no SSO form').to.equal(
        0,
      );
      await screenshot(page, 'connector-sign-in-page');
      await continueWith.click();
      await page.waitForURL((url) => url.href.startsWith(upstream.baseUrl));
      await page.getByRole('textbox', { name: /username/i }).fill(username);
      await page.getByLabel('Password', { exact: true }).fill('Correct-Horse-7');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Complete your account' }).waitFor();
      expect(await page.getByLabel('Password').count(), 'the identity stands for a password').to.equal(0);
      const chosen = `chosen_${Math.random().toString(36).slice(2, 8)}`;
      await page.getByRole('textbox', { name: 'Username' }).fill(chosen);
      await screenshot(page, 'connector-profile-step');
      await page.getByRole('button', { name: 'Continue' }).click();
      const userId = (await flow.finish()).claims()!.sub;
      const user = (await (await h.running.request(`/api/users/${userId}`)).json()) as {
        username: string;
        primaryEmail: string;
        identities: Record<string, { userId: string }>;
      };
      expect(user.username).to.equal(chosen);
      expect(user.primaryEmail).to.equal(email);
      expect(user.identities.upstream).to.have.property('userId');
      await h.delivery('User.Created', userId);
      await h.delivery('PostRegister', userId);
    } finally {
      await screenshot(page, 'connector-signed-in');
      await context.close();
      await skipRequiredIdentifiers(h.running);
    }
  });

  it('asks a registration through the provider for the email sign-up requires, proved by a code from the mailbox', async () => {
    const before = (await (await h.running.request('/api/sign-in-exp')).json()) as { signUp: unknown };
    await h.signInExperience({
      socialSignIn: {},
      signUp: { identifiers: ['email'], password: true, verify: true },
    });
    const username = `nomail_${Math.random().toString(36).slice(2, 8)}`;
    const created = await upstream.request('/api/users', {
      method: 'POST',
      json: { username, password: 'Correct-Horse-7' },
    });
    expect(created.status).to.equal(201);
    const email = `${username}@example.com`;
    const { page, context } = await freshPage(chromium.browser());
    try {
      const flow = await h.rp.signIn(page);
      await signInUpstream(page, username);
      await page.getByRole('heading', { name: 'Complete your account' }).waitFor();
      expect(await page.getByLabel('Password').count(), 'the identity stands for a password').to.equal(0);
      await page.getByRole('textbox', { name: 'Email', exact: true }).fill(email);
      await page.getByRole('button', { name: 'Send code' }).click();
      await page.getByRole('textbox', { name: 'Verification code' }).fill(await h.code(email));
      await screenshot(page, 'connector-profile-code');
      await page.getByRole('button', { name: 'Continue' }).click();
      const userId = (await flow.finish()).claims()!.sub;
      const user = (await (await h.running.request(`/api/users/${userId}`)).json()) as {
        primaryEmail: string;
        identities: Record<string, { userId: string }>;
      };
      expect(user.primaryEmail).to.equal(email);
      expect(user.identities.upstream).to.have.property('userId');
      await h.delivery('User.Created', userId);
      await h.delivery('PostRegister', userId);
    } finally {
      await context.close();
      await h.signInExperience({ signUp: before.signUp });
      await skipRequiredIdentifiers(h.running);
    }
  });

  it('sends a work email typed in the sign-in form to its SSO provider and back (Organization.Membership.Updated)', async () => {
    const app = await createApplication(upstream, {
      type: 'Traditional',
      name: 'Acme Notes SSO',
      oidcClientMetadata: {
        redirectUris: [`${h.running.baseUrl}/interaction/callback/sso`],
        postLogoutRedirectUris: [],
      },
    });
    const sso = (await (
      await h.running.request('/api/sso-connectors', {
        method: 'POST',
        json: {
          providerName: 'OIDC',
          connectorName: 'Delta',
          domains: ['delta.example.com'],
          branding: { displayName: 'Delta SSO' },
          config: { clientId: app.id, clientSecret: app.secret, issuer: `${upstream.baseUrl}/oidc` },
        },
      })
    ).json()) as { id: string };
    const organization = (await (
      await h.running.request('/api/organizations', { method: 'POST', json: { name: 'Delta Inc' } })
    ).json()) as { id: string };
    await h.running.request(`/api/organizations/${organization.id}/jit/sso-connectors`, {
      method: 'POST',
      json: { ssoConnectorIds: [sso.id] },
    });
    const username = `delta_${Math.random().toString(36).slice(2, 8)}`;
    await upstream.request('/api/users', {
      method: 'POST',
      json: { username, primaryEmail: `${username}@delta.example.com`, password: 'Correct-Horse-7' },
    });

    const { page, context } = await freshPage(chromium.browser());
    try {
      const flow = await h.rp.signIn(page);
      await page.getByRole('textbox', { name: 'Work email' }).fill(`${username}@delta.example.com`);
      await page.getByRole('button', { name: 'Continue with single sign-on' }).click();
      const toProvider = page.getByRole('link', { name: 'Continue with Delta SSO' });
      await toProvider.waitFor();
      await screenshot(page, 'connector-sso-choice');
      await toProvider.click();
      await page.waitForURL((url) => url.href.startsWith(upstream.baseUrl));
      await page.getByRole('textbox', { name: /username/i }).fill(username);
      await page.getByLabel('Password', { exact: true }).fill('Correct-Horse-7');
      await page.getByRole('button', { name: 'Sign in' }).click();
      const userId = (await flow.finish()).claims()!.sub;
      const members = (await (await h.running.request(`/api/organizations/${organization.id}/users`)).json()) as Array<{
        id: string;
      }>;
      expect(members.map((member) => member.id)).to.deep.equal([userId]);
      await h.delivery('PostRegister', userId);
    } finally {
      await screenshot(page, 'connector-sso-signed-in');
      await context.close();
    }
  });

  it('asks before linking to the account with the same email, and signs in to it after "Link and continue" (User.Data.Updated)', async () => {
    const connectors = (await (await h.running.request('/api/connectors?target=upstream')).json()) as Array<{
      id: string;
    }>;
    expect(connectors).to.have.length(1);
    const username = `linker_${Math.random().toString(36).slice(2, 8)}`;
    const email = `${username}@upstream.example.com`;
    await upstream.request('/api/users', {
      method: 'POST',
      json: { username, primaryEmail: email, password: 'Correct-Horse-7' },
    });
    const existing = (await (
      await h.running.request('/api/users', { method: 'POST', json: { primaryEmail: email } })
    ).json()) as { id: string };

    const { page, context } = await freshPage(chromium.browser());
    try {
      const flow = await h.rp.signIn(page);
      await signInUpstream(page, username);
      const link = page.getByRole('button', { name: 'Link and continue' });
      await link.waitFor();
      expect(await page.getByRole('heading', { name: 'Link your account' }).count()).to.equal(1);
      await screenshot(page, 'connector-link');
      await link.click();
      expect((await flow.finish()).claims()!.sub).to.equal(existing.id);
      const updated = await h.delivery('User.Data.Updated', existing.id);
      expect(updated.data.identities.upstream).to.have.property('userId');
    } finally {
      await context.close();
    }
  });

  it('with socialSignIn.automaticAccountLinking on, links to the account with the same verified email without asking', async () => {
    const settings = await h.running.request('/api/sign-in-exp', {
      method: 'PATCH',
      json: { socialSignIn: { automaticAccountLinking: true, skipRequiredIdentifiers: true } },
    });
    expect(settings.status).to.equal(200);
    const username = `auto_${Math.random().toString(36).slice(2, 8)}`;
    const email = `${username}@upstream.example.com`;
    await upstream.request('/api/users', {
      method: 'POST',
      json: { username, primaryEmail: email, password: 'Correct-Horse-7' },
    });
    const existing = (await (
      await h.running.request('/api/users', { method: 'POST', json: { primaryEmail: email } })
    ).json()) as { id: string };

    const { page, context } = await freshPage(chromium.browser());
    try {
      const flow = await h.rp.signIn(page);
      await signInUpstream(page, username);
      expect(
        (await flow.finish()).claims()!.sub,
        'signed in to the existing account, no link page on the way',
      ).to.equal(existing.id);
      const updated = await h.delivery('User.Data.Updated', existing.id);
      expect(updated.data.identities.upstream).to.have.property('userId');
    } finally {
      await screenshot(page, 'connector-auto-linked');
      await context.close();
    }
  });

  it('with no sign-in method (signIn.methods: []), the page is the social button alone, and a social sign-in through it completes', async () => {
    const before = (await (await h.running.request('/api/sign-in-exp')).json()) as Record<string, unknown>;
    await h.signInExperience({
      signIn: { methods: [] },
      signUp: { identifiers: [], password: false, verify: false },
      singleSignOnEnabled: false,
    });
    const username = `social_only_${Math.random().toString(36).slice(2, 8)}`;
    await upstream.request('/api/users', { method: 'POST', json: { username, password: 'Correct-Horse-7' } });
    try {
      const registered = await freshPage(chromium.browser());
      let userId: string;
      try {
        const flow = await h.rp.signIn(registered.page);
        await signInUpstream(registered.page, username);
        userId = (await flow.finish()).claims()!.sub;
        await h.delivery('PostRegister', userId);
      } finally {
        await screenshot(registered.page, 'connector-social-only-registered');
        await registered.context.close();
      }

      const { page, context } = await freshPage(chromium.browser());
      try {
        const flow = await h.rp.signIn(page);
        const main = page.getByRole('main');
        await main.getByRole('link', { name: 'Continue with Upstream ID' }).waitFor();
        expect(await main.getByRole('textbox').count(), 'no identifier, password or work email field').to.equal(0);
        expect(
          await main.getByRole('link').allTextContents(),
          'no forgot-password or create-account link',
        ).to.deep.equal(['Continue with Upstream ID']);
        expect(await main.getByRole('button').allTextContents()).to.deep.equal(['Cancel']);
        expect(await page.getByRole('heading', { name: 'Or continue with' }).count()).to.equal(0);
        await screenshot(page, 'connector-social-only-page');
        await signInUpstream(page, username);
        expect((await flow.finish()).claims()!.sub, 'the same account, signed in again').to.equal(userId);
        await h.delivery('PostSignIn', userId);
      } finally {
        await screenshot(page, 'connector-social-only-signed-in');
        await context.close();
      }
    } finally {
      await h.signInExperience({
        signIn: before.signIn,
        signUp: before.signUp,
        singleSignOnEnabled: before.singleSignOnEnabled,
      });
    }
  });
});
