import { expect } from 'chai';
import { accessibleDescription, freshPage, screenshot, useChromium } from '../support/chromium.ts';
import type { RunningService } from '../support/service.ts';
import { signInToConsole, startConsoleService } from './support/console.ts';

describe('browser: the console\'s sign-in experience and connectors pages (Chromium)', () => {
  const chromium = useChromium();
  let running: RunningService;
  before(async () => {
    running = await startConsoleService();
  });
  after(() => running?.close());

  async function read<T>(path: string): Promise<T> {
    const res = await running.request(path);
    expect(res.status, path).to.equal(200);
    return await res.json() as T;
  }

  it('changes the sign-in experience, shows refusals where they belong, and the sign-in page follows', async () => {
    const visitor = await freshPage(chromium.browser());
    const { page, context } = await freshPage(chromium.browser());
    try {
      // What an end user sees before: sign-up offered, no logo.
      await visitor.page.goto(`${running.baseUrl}/console`);
      await visitor.page.getByRole('button', { name: 'Sign in' }).click();
      await visitor.page.getByRole('textbox', { name: 'Username or email' }).waitFor();
      expect(await visitor.page.getByRole('link', { name: 'Create account' }).count()).to.equal(1);
      expect(await visitor.page.getByRole('img').count()).to.equal(0);

      await signInToConsole(page, `${running.baseUrl}/console/sign-in-experience`);
      await page.getByRole('heading', { name: 'Sign-in experience', level: 1 }).waitFor();

      const username = page.getByRole('group', { name: 'Username' });
      await username.getByRole('checkbox', { name: 'Password' }).uncheck();
      await page.getByRole('button', { name: 'Save sign-in and sign-up' }).click();
      await username.getByRole('alert').filter({ hasText: 'sign-in by username needs a password or a verification code' }).waitFor();
      await username.getByRole('checkbox', { name: 'Password' }).check();
      await page.getByRole('combobox', { name: 'Sign-in mode' }).selectOption({ label: 'Sign in only (no sign-up)' });
      await page.getByRole('button', { name: 'Save sign-in and sign-up' }).click();
      await page.getByRole('region', { name: 'Sign-in and sign-up' }).getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
      expect(await username.getByRole('alert').count()).to.equal(0);

      const logo = page.getByRole('textbox', { name: 'Logo URL' });
      await logo.fill('ftp://cdn.example.com/acme.svg');
      await page.getByRole('button', { name: 'Save branding' }).click();
      await page.locator('[aria-invalid="true"]').first().waitFor();
      expect(await accessibleDescription(logo)).to.include('must be an absolute http(s) URL');
      await logo.fill('https://cdn.example.com/acme.svg');
      await page.getByRole('button', { name: 'Save branding' }).click();
      await page.getByRole('region', { name: 'Branding' }).getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
      await screenshot(page, 'console-sign-in-experience');

      const settings = await read<{ signInMode: string; branding: { logoUrl?: string }; signIn: { methods: Array<{ identifier: string; password: boolean }> } }>('/api/sign-in-exp');
      expect(settings.signInMode).to.equal('SignIn');
      expect(settings.branding.logoUrl).to.equal('https://cdn.example.com/acme.svg');
      expect(settings.signIn.methods.find((method) => method.identifier === 'username')?.password).to.equal(true);

      // The same sign-in page, again: no sign-up, the logo.
      await visitor.page.reload();
      await visitor.page.getByRole('textbox', { name: 'Username or email' }).waitFor();
      expect(await visitor.page.getByRole('link', { name: 'Create account' }).count()).to.equal(0);
      expect(await visitor.page.getByRole('img', { name: /logo/ }).getAttribute('src')).to.equal('https://cdn.example.com/acme.svg');
      await screenshot(visitor.page, 'console-sign-in-experience-applied');
    } finally {
      await context.close();
      await visitor.context.close();
    }
  });
});
