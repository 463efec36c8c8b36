import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import mount from 'koa-mount';
import { pino } from 'pino';
import { createIdentityService, type IdentityService } from '../../../app/index.ts';
import { accessibleDescription, freshPage, screenshot, useChromium } from '../../support/chromium.ts';
import { signInToConsole } from '../../support/browser/console.ts';

const ADMIN = { username: 'first_admin', password: 'Copper-Kettle-93' };

describe('browser: the first admin through the one-time setup link, with the service mounted under /auth (Chromium)', () => {
  const chromium = useChromium();
  let server: Server;
  let service: IdentityService;
  let origin: string;
  const printed: string[] = [];

  before(async () => {
    server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    service = await createIdentityService({
      env: {
        STORAGE: 'memory',
        BASE_URL: `${origin}/auth`,
        ADMIN_CLIENT_ID: 'mounted-admin',
        ADMIN_CLIENT_SECRET: 'mounted-admin-secret-123',
      },
      logger: pino({ level: 'silent' }),
      print: (text) => printed.push(text),
    });
    const host = new Koa();
    host.use(mount('/auth', service.app));
    server.on('request', host.callback());
  });
  after(async () => {
    server?.closeAllConnections();
    await new Promise<void>((resolve) => server?.close(() => resolve()));
    await service?.close();
  });

  it('creates the first admin once from the printed link, signs in with it under the prefix, and refuses the link afterwards', async () => {
    const link = printed
      .join('')
      .split('\n')
      .map((line) => line.trim())
      .find((line) => line.startsWith(`${origin}/auth/console/setup#token=`));
    expect(link, printed.join('')).to.be.a('string');
    const { page, context } = await freshPage(chromium.browser());
    try {
      await page.goto(link!);
      await page.getByRole('heading', { name: 'Set up the console' }).waitFor();
      expect(new URL(page.url()).hash, 'the token leaves the address bar').to.equal('');
      await page.getByRole('textbox', { name: 'Username' }).fill(ADMIN.username);
      await page.getByLabel('Password', { exact: true }).fill('password');
      await page.getByLabel('Confirm password').fill('password');
      await page.getByRole('button', { name: 'Create admin' }).click();
      const password = page.getByLabel('Password', { exact: true });
      await page.locator('[aria-invalid="true"]').first().waitFor();
      expect(await accessibleDescription(password), 'the policy speaks at the password field').to.include(
        'most common passwords',
      );
      await screenshot(page, 'console-setup-weak-password');

      await password.fill(ADMIN.password);
      await page.getByLabel('Confirm password').fill(ADMIN.password);
      await page.getByRole('button', { name: 'Create admin' }).click();
      await page.getByText('The console admin first_admin is ready.').waitFor();
      await screenshot(page, 'console-setup-done');

      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('textbox', { name: 'Username or email' }).fill(ADMIN.username);
      await page.getByLabel('Password', { exact: true }).fill(ADMIN.password);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await page.getByRole('heading', { name: 'Applications', level: 1 }).waitFor();
      expect(page.url()).to.equal(`${origin}/auth/console/applications`);
      await screenshot(page, 'console-mounted-applications');

      // The same link, again: the page says setup is done.
      const again = await freshPage(chromium.browser());
      try {
        await again.page.goto(link!);
        await again.page.getByRole('alert').filter({ hasText: 'Setup is already complete' }).waitFor();
        await screenshot(again.page, 'console-setup-link-used');
      } finally {
        await again.context.close();
      }
    } finally {
      await context.close();
    }
  });

  it('signs in from any console address under the prefix and returns there', async () => {
    const { page, context } = await freshPage(chromium.browser());
    try {
      await signInToConsole(page, `${origin}/auth/console/applications/console`, ADMIN);
      await page.getByRole('heading', { name: 'Console', level: 1 }).waitFor();
      expect(page.url()).to.equal(`${origin}/auth/console/applications/console`);
    } finally {
      await screenshot(page, 'console-mounted-deep-link');
      await context.close();
    }
  });
});
