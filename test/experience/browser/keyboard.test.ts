import { expect } from 'chai';
import type { Locator, Page } from 'playwright-core';
import { createUser } from '../../support/fixtures.ts';
import { accessibleDescription, freshPage, isFocused, screenshot, useChromium } from '../../support/chromium.ts';
import { startBrowserHarness, type BrowserHarness } from '../../support/browser/harness.ts';

const PASSWORD = 'Copper-Kettle-93';

describe('browser: the sign-in pages by keyboard alone, and how they announce errors (Chromium)', () => {
  const chromium = useChromium();
  let h: BrowserHarness;

  before(async () => {
    h = await startBrowserHarness();
  });
  after(() => h?.close());

  /** Presses Tab and checks that each control, in order, takes the focus. */
  async function expectTabOrder(page: Page, controls: Locator[]): Promise<void> {
    for (const [index, control] of controls.entries()) {
      if (index > 0) await page.keyboard.press('Tab');
      expect(await isFocused(control), `focus step ${index + 1}: ${control}`).to.equal(true);
    }
  }

  it('reaches every field and button of the sign-in page with Tab, announces a wrong password, and signs in by keyboard', async () => {
    const user = await createUser(h.running, [], {}, PASSWORD);
    const { page, context } = await freshPage(chromium.browser());
    try {
      const flow = await h.rp.signIn(page);
      const identifier = page.getByRole('textbox', { name: 'Username or email' });
      const password = page.getByLabel('Password', { exact: true });
      await expectTabOrder(page, [
        identifier,
        password,
        page.getByRole('button', { name: 'Sign in', exact: true }),
        page.getByRole('link', { name: 'Forgot password?' }),
        page.getByRole('textbox', { name: 'Email', exact: true }),
        page.getByRole('button', { name: 'Send code' }),
        page.getByRole('link', { name: 'Create account' }),
        page.getByRole('button', { name: 'Cancel' }),
      ]);

      await identifier.focus();
      await page.keyboard.type(String(user.username));
      await page.keyboard.press('Tab');
      await page.keyboard.type('not the password');
      await page.keyboard.press('Enter');
      const alert = page.getByRole('alert');
      await alert.waitFor();
      expect(await alert.innerText()).to.include('The username, email or password is not right.');
      expect(await identifier.inputValue(), 'what was typed stays').to.equal(user.username);
      await screenshot(page, 'keyboard-wrong-password');

      await page.keyboard.press('Tab');
      expect(await isFocused(identifier), 'after the error, Tab starts at the first field').to.equal(true);
      await page.keyboard.press('Tab');
      await page.keyboard.type(PASSWORD);
      await page.keyboard.press('Enter');
      const tokens = await flow.finish();
      expect(tokens.claims()!.sub).to.equal(user.id);
    } finally {
      await screenshot(page, 'keyboard-sign-in');
      await context.close();
    }
  });

  it('ties a password policy problem to the password field, which takes the focus, on the sign-up page', async () => {
    const { page, context } = await freshPage(chromium.browser());
    try {
      await h.rp.signIn(page);
      await page.getByRole('link', { name: 'Create account' }).click();
      const username = page.getByRole('textbox', { name: 'Username' });
      const password = page.getByLabel('Password', { exact: true });
      await expectTabOrder(page, [
        username,
        password,
        page.getByRole('button', { name: 'Create account' }),
        page.getByRole('link', { name: 'Sign in instead' }),
      ]);

      await username.fill(`keyboard_${Date.now().toString(36)}`);
      await password.fill('password');
      await page.keyboard.press('Enter');
      await page.getByText('This password is one of the most common passwords').waitFor();
      expect(await password.getAttribute('aria-invalid')).to.equal('true');
      expect(await accessibleDescription(password))
        .to.include('At least 8 characters')
        .and.include('most common passwords');
      expect(await isFocused(password), 'the field with the problem has the focus').to.equal(true);
      expect(await username.getAttribute('aria-invalid'), 'the username is fine').to.equal(null);
      await screenshot(page, 'keyboard-sign-up-policy');
    } finally {
      await context.close();
    }
  });

  it('fits a phone-width screen: nothing scrolls sideways and every control is inside the viewport', async () => {
    const { page, context } = await freshPage(chromium.browser(), { width: 360, height: 740 });
    try {
      await h.rp.signIn(page);
      await page.getByRole('heading', { name: 'Sign in to Acme Notes' }).waitFor();
      const overflow = await page
        .getByRole('main')
        .evaluate(({ ownerDocument: { documentElement: root } }) => root.scrollWidth - root.clientWidth);
      expect(overflow, 'horizontal overflow in px').to.equal(0);
      for (const control of [
        page.getByRole('textbox', { name: 'Username or email' }),
        page.getByRole('button', { name: 'Send code' }),
      ]) {
        const box = await control.boundingBox();
        expect(box!.x).to.be.at.least(0);
        expect(box!.x + box!.width).to.be.at.most(360);
      }
    } finally {
      await screenshot(page, 'phone-sign-in');
      await context.close();
    }
  });
});
