import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { createApplication, createUser } from '../../support/fixtures.ts';
import { accessibleDescription, freshPage, isFocused, screenshot, useChromium } from '../../support/chromium.ts';
import { signInToConsole, useConsoleService } from '../../support/browser/console.ts';

describe('browser: the console, its sign-in and the applications page (Chromium)', () => {
  const chromium = useChromium();
  const running = useConsoleService();

  async function application(id: string): Promise<Record<string, any>> {
    return await running.read<Record<string, any>>(`/api/applications/${id}`);
  }

  async function openApplication(page: Page, name: string): Promise<void> {
    await page.getByRole('link', { name: 'Applications' }).click();
    await page.getByRole('link', { name, exact: true }).click();
    await page.getByRole('heading', { name, level: 1 }).waitFor();
  }

  it('signs the admin in, creates an application showing its secret once, and switches on "Allow token exchange"', async () => {
    const { page, context } = await freshPage(chromium.browser());
    try {
      await signInToConsole(page, running.consoleUrl());
      await page.getByRole('heading', { name: 'Applications', level: 1 }).waitFor();
      expect(await page.getByText('Signed in as console_admin').count()).to.equal(1);

      await page.getByRole('button', { name: 'Create application' }).click();
      const dialog = page.getByRole('dialog', { name: 'Create application' });
      await dialog.getByRole('textbox', { name: 'Name' }).fill('Support desk');
      await dialog.getByRole('combobox', { name: 'Type' }).selectOption('Traditional');
      await dialog.getByRole('button', { name: 'Create', exact: true }).click();
      const secretBox = dialog.getByRole('textbox', { name: 'Client secret' });
      const secret = await secretBox.inputValue();
      const clientId = await dialog.getByRole('textbox', { name: 'Client ID' }).inputValue();
      expect(secret).to.have.length.greaterThan(30);
      expect(await accessibleDescription(secretBox)).to.include('Shown once');
      await screenshot(page, 'console-application-created');

      await dialog.getByRole('button', { name: 'Open application' }).click();
      await page.getByRole('heading', { name: 'Support desk', level: 1 }).waitFor();
      expect(
        await page.getByRole('textbox', { name: 'Client secret' }).count(),
        'the secret is not shown again',
      ).to.equal(0);
      const toggle = page.getByRole('switch', { name: 'Allow token exchange' });
      expect(await toggle.getAttribute('aria-checked')).to.equal('false');
      await toggle.click();
      await page.locator('[role="switch"][aria-checked="true"]').waitFor();
      expect((await application(clientId)).customClientMetadata.allowTokenExchange).to.equal(true);

      // The secret really is the application's: it authenticates at the token endpoint.
      const token = await fetch(`${running.baseUrl}/oidc/token`, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}` },
        body: new URLSearchParams({
          grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
          subject_token: 'sub_tk_unknown',
          subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
        }),
      });
      expect(
        ((await token.json()) as { error: string }).error,
        'authenticated, then refused for the unknown subject token',
      ).to.equal('invalid_request');
      await screenshot(page, 'console-token-exchange-on');
    } finally {
      await context.close();
    }
  });

  it("shows the API's objection next to the field that caused it, and saves once corrected", async () => {
    const app = await createApplication(running, { type: 'SPA', name: 'Field errors app' });
    const { page, context } = await freshPage(chromium.browser());
    try {
      await signInToConsole(page, running.consoleUrl());
      await openApplication(page, 'Field errors app');
      const uris = page.getByRole('textbox', { name: 'Redirect URIs', exact: true });
      await uris.fill('https://app.example.com/callback\nnot a uri');
      await page.getByRole('button', { name: 'Save settings' }).click();
      await page.locator('[aria-invalid="true"]').first().waitFor();
      expect(await uris.getAttribute('aria-invalid')).to.equal('true');
      expect(await accessibleDescription(uris))
        .to.include('line 2')
        .and.include('must be an absolute URI');
      await screenshot(page, 'console-field-error');

      await uris.fill('https://app.example.com/callback');
      await page.getByRole('button', { name: 'Save settings' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
      expect(await uris.getAttribute('aria-invalid')).to.equal(null);
      expect((await application(app.id)).oidcClientMetadata.redirectUris).to.deep.equal([
        'https://app.example.com/callback',
      ]);
    } finally {
      await screenshot(page, 'console-field-error-corrected');
      await context.close();
    }
  });

  it('disables "Allow token exchange" for a third-party application and says why', async () => {
    await createApplication(running, { type: 'Traditional', name: 'Partner app', isThirdParty: true });
    const { page, context } = await freshPage(chromium.browser());
    try {
      await signInToConsole(page, running.consoleUrl());
      await openApplication(page, 'Partner app');
      const toggle = page.getByRole('switch', { name: 'Allow token exchange' });
      expect(await toggle.isDisabled()).to.equal(true);
      expect(await accessibleDescription(toggle)).to.include('Third-party applications can never use token exchange');
      await screenshot(page, 'console-third-party');
    } finally {
      await context.close();
    }
  });

  it('tells a signed-in user without the Console admin role that the console is not for them, and signs them out', async () => {
    const user = await createUser(running, [], {}, 'Quiet-Harbor-58');
    const { page, context } = await freshPage(chromium.browser());
    try {
      await signInToConsole(page, running.consoleUrl(), {
        username: String(user.username),
        password: 'Quiet-Harbor-58',
      });
      await page.getByRole('heading', { name: 'No access to the console' }).waitFor();
      expect(await page.getByRole('alert').innerText())
        .to.include('not a console admin')
        .and.include('Console admin role');
      expect(await page.getByRole('link', { name: 'Applications' }).count(), 'no console page is reachable').to.equal(
        0,
      );
      await screenshot(page, 'console-not-admin');
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('button', { name: 'Yes, sign me out' }).click();
      await page.getByText('You are signed out.').waitFor();
    } finally {
      await screenshot(page, 'console-not-admin-signed-out');
      await context.close();
    }
  });

  it('signs the admin out, and a sign-in is needed again', async () => {
    const { page, context } = await freshPage(chromium.browser());
    try {
      await signInToConsole(page, running.consoleUrl());
      await page.getByRole('heading', { name: 'Applications', level: 1 }).waitFor();
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('button', { name: 'Yes, sign me out' }).click();
      await page.getByText('You are signed out.').waitFor();
      await page.goto(running.consoleUrl('/applications'));
      await page.getByRole('heading', { name: 'Sign in to the console' }).waitFor();
      await screenshot(page, 'console-signed-out');
    } finally {
      await context.close();
    }
  });

  it("fits every page of its navigation into a phone's width (360 px): tables scroll inside themselves, the page never sideways", async () => {
    const { page, context } = await freshPage(chromium.browser(), { width: 360, height: 740 });
    try {
      await signInToConsole(page, running.consoleUrl());
      await page.getByRole('heading', { name: 'Applications', level: 1 }).waitFor();
      const navigation = page.getByRole('navigation', { name: 'Console' });
      const names = (await navigation.getByRole('link').allInnerTexts()).filter((name) => name !== 'API reference');
      expect(names.length).to.be.greaterThan(4);
      for (const name of names) {
        await navigation.getByRole('link', { name, exact: true }).click();
        await page.getByRole('heading', { level: 1 }).first().waitFor();
        // A page may load several sections at once: wait until none still says it is loading.
        const loading = page.getByRole('status').filter({ hasText: /^Loading/ });
        for (let left = 20; left > 0 && (await loading.count()) > 0; left--)
          await loading.first().waitFor({ state: 'detached' });
        expect(await loading.count(), `${name}: loaded`).to.equal(0);
        const overflow = await page.locator('html').evaluate((root) => root.scrollWidth - root.clientWidth);
        expect(overflow, `${name}: nothing sticks out sideways`).to.be.at.most(0);
      }
    } finally {
      await screenshot(page, 'console-phone-last-page');
      await context.close();
    }
  });

  it('works by keyboard alone at phone width (360 px): create an application and read its secret', async () => {
    const { page, context } = await freshPage(chromium.browser(), { width: 360, height: 740 });
    try {
      await signInToConsole(page, running.consoleUrl());
      await page.getByRole('heading', { name: 'Applications', level: 1 }).waitFor();
      const overflow = await page.locator('html').evaluate((root) => root.scrollWidth - root.clientWidth);
      expect(overflow, 'nothing sticks out sideways').to.be.at.most(0);
      await screenshot(page, 'console-phone-applications');

      const create = page.getByRole('button', { name: 'Create application' });
      for (let presses = 0; presses < 12 && !(await isFocused(create)); presses += 1) await page.keyboard.press('Tab');
      expect(await isFocused(create), 'Tab reaches "Create application"').to.equal(true);
      await page.keyboard.press('Enter');
      const name = page.getByRole('dialog', { name: 'Create application' }).getByRole('textbox', { name: 'Name' });
      await name.waitFor();
      // The dialog takes the focus; its first field is one Tab past the close button.
      for (let presses = 0; presses < 3 && !(await isFocused(name)); presses += 1) await page.keyboard.press('Tab');
      expect(await isFocused(name)).to.equal(true);
      await page.keyboard.type('Phone app');
      await page.keyboard.press('Enter');
      await page.getByRole('textbox', { name: 'Client secret' }).waitFor();
      await screenshot(page, 'console-phone-created');
      await page.keyboard.press('Escape');
      await page.getByRole('link', { name: 'Phone app', exact: true }).waitFor();
    } finally {
      await screenshot(page, 'console-phone-end');
      await context.close();
    }
  });
});
