import { expect } from 'chai';
import type { CDPSession, Page } from 'playwright-core';
import { createUser } from '../../support/fixtures.ts';
import { freshPage, screenshot, useChromium } from '../../support/chromium.ts';
import { SoftPasskey } from '../../support/webauthn.ts';
import { totpCode } from '../../support/mfa.ts';
import { accountClient, asUser, passwordRecord } from '../../support/account.ts';
import { startBrowserHarness, type BrowserHarness } from '../../support/browser/harness.ts';

const PASSWORD = 'Browser-Passkey-7';

async function signInWithPassword(page: Page, username: string): Promise<void> {
  await page.getByRole('textbox', { name: 'Username or email' }).fill(username);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** A platform authenticator with user verification, as a laptop's fingerprint reader is (Chrome DevTools Protocol). */
async function virtualAuthenticator(page: Page): Promise<{ cdp: CDPSession; authenticatorId: string }> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
    },
  });
  return { cdp, authenticatorId };
}

describe('browser: passkeys on the sign-in pages (Chromium, virtual authenticator)', () => {
  const chromium = useChromium();
  let h: BrowserHarness;

  before(async () => {
    // WebAuthn takes a domain, not an IP address, as the relying party's id: BASE_URL is http://localhost:<port>.
    h = await startBrowserHarness({}, { publicHost: 'localhost' });
  });
  afterEach(() => h?.signInExperience({ mfa: { factors: [], policy: 'UserControlled' } }));
  after(() => h?.close());

  it('mandatory policy: creates a passkey at sign-in, then signs in again with it', async () => {
    await h.signInExperience({ mfa: { factors: ['WebAuthn'], policy: 'Mandatory' } });
    const user = await createUser(h.running, [], {}, PASSWORD);
    const { page, context } = await freshPage(chromium.browser());
    try {
      const { cdp, authenticatorId } = await virtualAuthenticator(page);
      const flow = await h.rp.signIn(page);
      const setup = page.waitForResponse(
        (res) => res.url().endsWith('/mfa/passkey/setup') && res.request().method() === 'GET',
      );
      await signInWithPassword(page, user.username!);
      const answer = await setup;
      const csp = answer.headers()['content-security-policy']!;
      expect(csp).to.include(`script-src ${h.running.baseUrl}/interaction/assets/passkey.js`);
      expect(csp).not.to.include('unsafe-inline');
      expect(answer.headers()['cache-control']).to.equal('no-store');
      await page.getByRole('heading', { name: 'Set up a passkey' }).waitFor();
      expect(await page.getByText('Passkeys need JavaScript').count(), 'the script runs and removes the note').to.equal(
        0,
      );
      expect(await page.getByRole('button', { name: 'Skip for now' }).count(), 'mandatory: no way to skip').to.equal(0);
      await screenshot(page, 'passkey-setup');
      await page.getByRole('button', { name: 'Create a passkey' }).click();
      expect((await flow.finish()).claims()!.sub).to.equal(user.id);

      const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
      expect(credentials).to.have.length(1);
      expect(credentials[0]!.rpId).to.equal('localhost');
      const factors = (await (await h.running.request(`/api/users/${user.id}/mfa-verifications`)).json()) as Array<
        Record<string, string>
      >;
      expect(factors.map((factor) => factor.type)).to.deep.equal(['WebAuthn']);
      expect(factors[0]!.agent).to.equal('browser-tests (Chromium)');
      expect(JSON.stringify(factors)).not.to.include(credentials[0]!.credentialId.replace(/=+$/, ''));
      await h.delivery('User.Data.Updated', user.id);

      // A new sign-in (no session left), on the device that holds the passkey.
      await context.clearCookies();
      const again = await h.rp.signIn(page);
      await signInWithPassword(page, user.username!);
      await page.getByRole('heading', { name: 'Two-step verification' }).waitFor();
      await screenshot(page, 'passkey-sign-in');
      await page.getByRole('button', { name: 'Use a passkey' }).click();
      expect((await again.finish()).claims()!.sub).to.equal(user.id);
      const [used] = (await (await h.running.request(`/api/users/${user.id}/mfa-verifications`)).json()) as Array<
        Record<string, string>
      >;
      expect(used!.lastUsedAt).to.be.a('string');
      const after = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
      expect(after.credentials[0]!.signCount, 'the authenticator counted the sign-in').to.be.greaterThan(
        credentials[0]!.signCount,
      );
    } finally {
      await context.close();
    }
  });

  it('an account with an app and a passkey: "Use a passkey" from the code page, and without JavaScript the app still works', async () => {
    const user = await createUser(h.running, [], {}, PASSWORD);
    // The passkey is registered through the Account API by a software authenticator of this origin.
    const me = asUser(h.running, await (await accountClient(h.running)).signIn(user.username!, PASSWORD));
    await h.signInExperience({ mfa: { factors: ['Totp', 'WebAuthn'], policy: 'UserControlled' } });
    const started = await me('/api/verifications/web-authn/registration', { method: 'POST' });
    const record = started.body!.verificationRecordId as string;
    const soft = new SoftPasskey(h.running.baseUrl);
    const payload = soft.register(started.body!.registrationOptions as { challenge: string; rp: { id: string } });
    expect(
      (
        await me('/api/verifications/web-authn/registration/verify', {
          method: 'POST',
          json: { verificationRecordId: record, payload },
        })
      ).status,
    ).to.equal(200);
    const added = await me('/api/my-account/mfa-verifications', {
      method: 'POST',
      json: { type: 'WebAuthn', newIdentifierVerificationRecordId: record, name: 'Phone' },
      verification: await passwordRecord(me, PASSWORD),
    });
    expect(added.status).to.equal(204);
    const totp = (await (
      await h.running.request(`/api/users/${user.id}/mfa-verifications`, { method: 'POST', json: { type: 'Totp' } })
    ).json()) as { secret: string };

    const context = await chromium
      .browser()
      .newContext({ javaScriptEnabled: false, userAgent: 'browser-tests (no script)' });
    context.setDefaultTimeout(10_000);
    const page = await context.newPage();
    try {
      const flow = await h.rp.signIn(page);
      await signInWithPassword(page, user.username!);
      await page.getByRole('textbox', { name: 'Authentication code' }).waitFor();
      await page.getByRole('link', { name: 'Use a passkey' }).click();
      await page.getByText('Passkeys need JavaScript').waitFor();
      await screenshot(page, 'passkey-without-javascript');
      await page.getByRole('link', { name: 'Use your authenticator app' }).click();
      await page.getByRole('textbox', { name: 'Authentication code' }).fill(totpCode(totp.secret));
      await page.getByRole('button', { name: 'Verify' }).click();
      expect((await flow.finish()).claims()!.sub).to.equal(user.id);
    } finally {
      await context.close();
    }
  });
});
