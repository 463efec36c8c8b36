import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { freshPage, screenshot, useChromium } from '../../support/chromium.ts';
import type { Tokens } from '../../support/browser/relying-party.ts';
import { startBrowserHarness, uniqueEmail, type BrowserHarness } from '../../support/browser/harness.ts';

const FIRST_PASSWORD = 'Lantern-Orbit-42';
const NEW_PASSWORD = 'Quiet-Harbor-Maple-7';

describe('browser: sign up with an email code, sign out, reset the password, sign in again (Chromium)', () => {
  const chromium = useChromium();
  let h: BrowserHarness;

  before(async () => {
    h = await startBrowserHarness();
    await h.signInExperience({ signUp: { identifiers: ['email'], password: true, verify: true } });
  });
  after(() => h?.close());

  /** Lands on the relying party's callback with a signed-in user; returns the user's id. */
  async function expectSignedIn(page: Page, finish: () => Promise<Tokens>): Promise<Tokens> {
    const tokens = await finish();
    expect(await page.getByRole('heading', { name: 'Back at Acme Notes' }).isVisible()).to.equal(true);
    expect(tokens.access_token).to.be.a('string');
    return tokens;
  }

  it('goes through every page by role and name, and the client ends with tokens each time', async () => {
    const { page, context } = await freshPage(chromium.browser());
    const email = uniqueEmail('reader');
    try {
      // Sign up: the sign-in page offers "Create account"; the code comes from the real mailbox.
      const first = await h.rp.signIn(page);
      await page.getByRole('heading', { name: 'Sign in to Acme Notes' }).waitFor();
      const logo = page.getByRole('img', { name: 'Acme Notes logo' });
      expect(
        await logo.evaluate((image) => image.complete && image.naturalWidth > 0),
        'the logo loads under the CSP',
      ).to.equal(true);
      await screenshot(page, 'flow-1-sign-in');
      await page.getByRole('link', { name: 'Create account' }).click();
      await page.getByRole('heading', { name: 'Create your Acme Notes account' }).waitFor();
      await page.getByRole('textbox', { name: 'Email', exact: true }).fill(email);
      await screenshot(page, 'flow-2-sign-up');
      await page.getByRole('button', { name: 'Send code' }).click();
      await page.getByText(`We sent a code to ${email}`).waitFor();
      await page.getByRole('textbox', { name: 'Verification code' }).fill(await h.code(email));
      await page.getByLabel('Password', { exact: true }).fill(FIRST_PASSWORD);
      await screenshot(page, 'flow-3-sign-up-code');
      await page.getByRole('button', { name: 'Create account' }).click();
      const registered = await expectSignedIn(page, first.finish);
      const userId = registered.claims()!.sub;
      const stored = (await (await h.running.request(`/api/users/${userId}`)).json()) as Record<string, unknown>;
      expect(stored).to.include({ primaryEmail: email, hasPassword: true });

      const created = await h.delivery('User.Created', userId);
      expect(created).to.include({
        interactionEvent: 'Register',
        applicationId: h.rp.app.id,
        userAgent: 'browser-tests (Chromium)',
      });
      const postRegister = await h.delivery('PostRegister', userId);
      expect(postRegister.user).to.include({ id: userId, primaryEmail: email, hasPassword: true });
      expect(postRegister.application).to.include({ id: h.rp.app.id, name: 'Acme Notes' });

      // RP-initiated logout through the provider's confirmation page.
      await h.rp.signOut(page, registered.id_token!);
      await page.getByRole('button', { name: 'Yes, sign me out' }).click();
      await page.waitForURL((url) => url.href.startsWith(h.rp.signedOut));

      // Forgot password: a code to the email, a new password, back to the sign-in page.
      const second = await h.rp.signIn(page);
      await page.getByRole('link', { name: 'Forgot password?' }).click();
      await page.getByRole('heading', { name: 'Reset your password' }).waitFor();
      await page.getByRole('textbox', { name: 'Email', exact: true }).fill(email);
      await screenshot(page, 'flow-4-forgot-password');
      await page.getByRole('button', { name: 'Send code' }).click();
      await page.getByRole('textbox', { name: 'Verification code' }).fill(await h.code(email));
      await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
      await screenshot(page, 'flow-5-reset-code');
      await page.getByRole('button', { name: 'Reset password' }).click();
      await page.getByRole('status').filter({ hasText: 'Your password was changed' }).waitFor();
      await screenshot(page, 'flow-6-password-changed');
      const reset = await h.delivery('PostResetPassword', userId);
      expect(reset).to.include({ interactionEvent: 'ForgotPassword', userId });
      const updated = await h.delivery('User.Data.Updated', userId);
      expect(updated).to.include({ interactionEvent: 'ForgotPassword', applicationId: h.rp.app.id });

      // The old password no longer works; the new one does.
      await page.getByRole('textbox', { name: 'Username or email' }).fill(email);
      await page.getByLabel('Password', { exact: true }).fill(FIRST_PASSWORD);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await page.getByRole('alert').filter({ hasText: 'not right' }).waitFor();
      await page.getByLabel('Password', { exact: true }).fill(NEW_PASSWORD);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      const signedIn = await expectSignedIn(page, second.finish);
      expect(signedIn.claims()!.sub).to.equal(userId);
      const postSignIn = await h.delivery('PostSignIn', userId);
      expect(postSignIn).to.include({ interactionEvent: 'SignIn', userId, userAgent: 'browser-tests (Chromium)' });
      expect(postSignIn.application).to.include({ id: h.rp.app.id });

      const payloads = JSON.stringify(h.deliveries());
      for (const secret of [FIRST_PASSWORD, NEW_PASSWORD]) expect(payloads).not.to.include(secret);
      expect(payloads).not.to.match(/passwordDigest/);
      expect(h.rp.logoRequests(), 'the logo was shown from its own origin').to.be.greaterThan(0);
    } finally {
      await screenshot(page, 'sign-up-and-reset');
      await context.close();
    }
  });
});
