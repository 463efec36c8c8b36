import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { createUser } from '../../support/fixtures.ts';
import { accessibleDescription, freshPage, screenshot, useChromium } from '../../support/chromium.ts';
import { totpCode } from '../../support/mfa.ts';
import { startBrowserHarness, type BrowserHarness } from '../../support/browser/harness.ts';

const PASSWORD = 'Browser-Second-9';

async function signInWithPassword(page: Page, username: string): Promise<void> {
  await page.getByRole('textbox', { name: 'Username or email' }).fill(username);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

describe('browser: two-step verification on the sign-in pages (Chromium)', () => {
  const chromium = useChromium();
  let h: BrowserHarness;

  before(async () => {
    h = await startBrowserHarness();
  });
  after(() => h?.close());

  async function enrolled(): Promise<{
    user: { id: string; username: string | null };
    secret: string;
    codes: string[];
  }> {
    const user = await createUser(h.running, [], {}, PASSWORD);
    const totp = (await (
      await h.running.request(`/api/users/${user.id}/mfa-verifications`, { method: 'POST', json: { type: 'Totp' } })
    ).json()) as { secret: string };
    const backup = (await (
      await h.running.request(`/api/users/${user.id}/mfa-verifications`, {
        method: 'POST',
        json: { type: 'BackupCode' },
      })
    ).json()) as { codes: string[] };
    return { user, secret: totp.secret, codes: backup.codes };
  }

  it('signs in with a password, then the code of the authenticator app (a wrong one shown on its field)', async () => {
    const { user, secret } = await enrolled();
    const { page, context } = await freshPage(chromium.browser());
    try {
      const flow = await h.rp.signIn(page);
      await signInWithPassword(page, user.username!);
      await page.getByRole('heading', { name: 'Two-step verification' }).waitFor();
      const field = page.getByRole('textbox', { name: 'Authentication code' });
      await field.fill(totpCode(secret, 9));
      await page.getByRole('button', { name: 'Verify' }).click();
      await page
        .getByRole('textbox', { name: 'Authentication code' })
        .and(page.locator('[aria-invalid=true]'))
        .waitFor();
      expect(await accessibleDescription(field)).to.include('The code is not right');
      await field.fill(totpCode(secret));
      await screenshot(page, 'mfa-authentication-code');
      await page.getByRole('button', { name: 'Verify' }).click();
      expect((await flow.finish()).claims()!.sub).to.equal(user.id);
      await h.delivery('PostSignIn', user.id);
    } finally {
      await context.close();
    }
  });

  it('"Use a backup code" signs in with one of the saved codes', async () => {
    const { user, codes } = await enrolled();
    const { page, context } = await freshPage(chromium.browser());
    try {
      const flow = await h.rp.signIn(page);
      await signInWithPassword(page, user.username!);
      await page.getByRole('link', { name: 'Use a backup code' }).click();
      await page.getByRole('textbox', { name: 'Backup code' }).fill(codes[3]!);
      await screenshot(page, 'mfa-backup-code');
      await page.getByRole('button', { name: 'Verify' }).click();
      expect((await flow.finish()).claims()!.sub).to.equal(user.id);
    } finally {
      await context.close();
    }
  });

  it('mandatory policy: shows the QR code and the key once, confirms a code from them, then shows the backup codes once', async () => {
    await h.signInExperience({ mfa: { factors: ['Totp', 'BackupCode'], policy: 'Mandatory' } });
    const user = await createUser(h.running, [], {}, PASSWORD);
    const { page, context } = await freshPage(chromium.browser());
    try {
      const flow = await h.rp.signIn(page);
      const setup = page.waitForResponse((res) => res.url().endsWith('/mfa/setup') && res.request().method() === 'GET');
      await signInWithPassword(page, user.username!);
      const answer = await setup;
      expect(answer.headers()['content-security-policy']).to.match(/img-src[^;]* data:/);
      expect(answer.headers()['cache-control']).to.equal('no-store');
      const qr = page.getByRole('img', { name: 'QR code to add this account to an authenticator app' });
      const naturalWidth = await (await (await qr.elementHandle())!.getProperty('naturalWidth')).jsonValue();
      expect(naturalWidth, 'the QR code image decoded').to.be.greaterThan(0);
      expect(await page.getByRole('button', { name: 'Skip for now' }).count(), 'mandatory: no way to skip').to.equal(0);
      const secret = (await page.getByLabel('Setup key').innerText()).replace(/\s/g, '');
      await screenshot(page, 'mfa-setup');
      await page.getByRole('textbox', { name: 'Authentication code' }).fill(totpCode(secret));
      await page.getByRole('button', { name: 'Confirm' }).click();

      const list = page.getByRole('list', { name: 'Backup codes' });
      const codes = await list.getByRole('listitem').allInnerTexts();
      expect(codes).to.have.length(10);
      await screenshot(page, 'mfa-backup-codes');
      await page.getByRole('button', { name: 'I have saved my backup codes' }).click();
      expect((await flow.finish()).claims()!.sub).to.equal(user.id);
      const factors = (await (await h.running.request(`/api/users/${user.id}/mfa-verifications`)).json()) as Array<{
        type: string;
      }>;
      expect(factors.map((factor) => factor.type).sort()).to.deep.equal(['BackupCode', 'Totp']);
      const updated = await h.delivery('User.Data.Updated', user.id);
      expect(JSON.stringify(updated)).not.to.include(secret);
      expect(JSON.stringify(h.deliveries())).not.to.include(codes[0]!);
    } finally {
      await context.close();
      await h.signInExperience({ mfa: { factors: [], policy: 'UserControlled' } });
    }
  });
});
