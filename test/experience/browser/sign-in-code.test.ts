import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { createUser } from '../../support/fixtures.ts';
import { accessibleDescription, freshPage, isFocused, screenshot, useChromium } from '../../support/chromium.ts';
import { startBrowserHarness, uniqueEmail, type BrowserHarness } from '../../support/browser/harness.ts';

/** The status the service answered a form post with, once the click that sends it is done. */
async function postStatus(
  page: Page,
  click: () => Promise<void>,
): Promise<{ status: number; retryAfter: string | null }> {
  const [response] = await Promise.all([page.waitForResponse((res) => res.request().method() === 'POST'), click()]);
  return { status: response.status(), retryAfter: await response.headerValue('retry-after') };
}

describe('browser: sign-in with an email code (Chromium)', () => {
  const chromium = useChromium();
  let h: BrowserHarness;

  before(async () => {
    h = await startBrowserHarness({ MESSAGE_RATE_LIMIT_COUNT: '3' });
  });
  after(() => h?.close());

  it('shows a wrong code on the code field, then signs in with the right one (PostSignIn)', async () => {
    const email = uniqueEmail('coder');
    const user = await createUser(h.running, [], { primaryEmail: email }, 'Unused-Password-11');
    const { page, context } = await freshPage(chromium.browser());
    try {
      const flow = await h.rp.signIn(page);
      await page.getByRole('textbox', { name: 'Email', exact: true }).fill(email);
      await page.getByRole('button', { name: 'Send code' }).click();
      const code = await h.code(email);
      const field = page.getByRole('textbox', { name: 'Verification code' });
      await field.fill(code === '000000' ? '111111' : '000000');
      const wrong = await postStatus(page, () => page.getByRole('button', { name: 'Sign in' }).click());
      expect(wrong.status).to.equal(400);
      expect(await field.getAttribute('aria-invalid')).to.equal('true');
      expect(await accessibleDescription(field)).to.include('The code is not right');
      expect(await isFocused(field)).to.equal(true);
      await screenshot(page, 'code-wrong');

      await field.fill(code);
      await page.getByRole('button', { name: 'Sign in' }).click();
      expect((await flow.finish()).claims()!.sub).to.equal(user.id);
      const signedIn = await h.delivery('PostSignIn', user.id);
      expect(signedIn).to.include({ interactionEvent: 'SignIn' });
      expect(JSON.stringify(h.deliveries())).not.to.include(code);
    } finally {
      await screenshot(page, 'sign-in-code');
      await context.close();
    }
  });

  it('answers too many codes to one address with a 429 message (Retry-After), not an error page', async () => {
    const email = uniqueEmail('limited');
    await createUser(h.running, [], { primaryEmail: email });
    const { page, context } = await freshPage(chromium.browser());
    try {
      await h.rp.signIn(page);
      await page.getByRole('textbox', { name: 'Email', exact: true }).fill(email);
      await page.getByRole('button', { name: 'Send code' }).click();
      for (let sent = 1; sent < 3; sent += 1) {
        await page.getByRole('button', { name: 'Send a new code' }).click();
        await page.getByRole('status').filter({ hasText: 'A new code is on its way' }).waitFor();
      }
      const limited = await postStatus(page, () => page.getByRole('button', { name: 'Send a new code' }).click());
      expect(limited.status).to.equal(429);
      expect(Number(limited.retryAfter)).to.be.greaterThan(0);
      expect(await page.getByRole('alert').innerText()).to.include('Too many codes were sent to this address');
      expect(h.mailbox.messages(email)).to.have.length(3);
    } finally {
      await screenshot(page, 'code-rate-limited');
      await context.close();
    }
  });

  it('puts the code form first when the code is the primary factor', async () => {
    await h.signInExperience({
      signIn: {
        methods: [
          { identifier: 'username', password: true, verificationCode: false, isPasswordPrimary: true },
          { identifier: 'email', password: true, verificationCode: true, isPasswordPrimary: false },
        ],
      },
    });
    const { page, context } = await freshPage(chromium.browser());
    try {
      await h.rp.signIn(page);
      const codeField = page.getByRole('textbox', { name: 'Email', exact: true });
      await codeField.waitFor();
      expect(await isFocused(codeField), 'the first field of the page has the focus').to.equal(true);
      await page.keyboard.press('Tab');
      expect(await isFocused(page.getByRole('button', { name: 'Send code' }))).to.equal(true);
      await page.keyboard.press('Tab');
      expect(await isFocused(page.getByRole('textbox', { name: 'Username or email' }))).to.equal(true);
    } finally {
      await screenshot(page, 'code-first');
      await context.close();
    }
  });
});
