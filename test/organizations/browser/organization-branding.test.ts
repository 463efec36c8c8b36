import { logtoClient, startAppPages, titledPage, type AppPages } from '../../support/app-pages.ts';
import { expect } from 'chai';
import type { Locator, Page } from 'playwright-core';
import { freshPage, screenshot, useChromium } from '../../support/chromium.ts';
import { createApplication, createUser } from '../../support/fixtures.ts';
import { startService, type RunningService } from '../../support/service.ts';
import { newId } from '../../../lib/ids.ts';

const PASSWORD = 'Correct-Horse-7';
const logo = (fill: string) =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="160" height="48"><rect width="160" height="48" fill="${fill}"/></svg>`;

/** The application's pages and the organization's logos, on one loopback origin. */
function appPages() {
  return startAppPages((req, res) => {
    if (req.url?.endsWith('.svg')) {
      res.writeHead(200, { 'content-type': 'image/svg+xml' }).end(logo(req.url.includes('dark') ? '#222' : '#0f766e'));
      return;
    }
    titledPage(res, 'Back at Acme');
  });
}

/**
 * Logto's `organization_id` authorization parameter (sent through `@logto/node`'s `extraParams`): the sign-in pages
 * show that organization's logos, colors and style sheet, and only for a sign-in naming it.
 */
describe("browser: an organization's branding on the sign-in pages (Chromium)", () => {
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

  async function startSignIn(page: Page, app: { id: string; secret?: string }, extraParams?: Record<string, string>) {
    const { logto, navigated } = logtoClient({ endpoint: running.baseUrl, appId: app.id, appSecret: app.secret! });
    await logto.signIn({ redirectUri: `${pages.origin}/callback`, extraParams });
    await page.goto(navigated());
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    return { logto, title: await page.title() };
  }

  /** A style property of the element as the browser computed it. */
  const computed = (locator: Locator, property: 'backgroundColor' | 'letterSpacing') =>
    locator.evaluate((element, name) => element.ownerDocument.defaultView!.getComputedStyle(element)[name], property);
  const buttonColor = (page: Page) => computed(page.getByRole('button', { name: 'Sign in' }), 'backgroundColor');
  const headingSpacing = (page: Page) =>
    computed(page.getByRole('heading', { name: 'Sign in to Acme Web' }), 'letterSpacing');
  /** The address of the image the browser loaded and shows. */
  const shown = (image: Locator) =>
    image.evaluate((img) =>
      ['complete', 'naturalWidth', 'currentSrc'].map((key) => String(Reflect.get(img, key))).join(' '),
    );

  it("shows the organization's logos, colors and style sheet when the sign-in names it, and nothing of it otherwise", async () => {
    const organization = (await (
      await running.request('/api/organizations', {
        method: 'POST',
        json: {
          name: 'Teal Corp',
          color: { primaryColor: '#0f766e', isDarkModeEnabled: true, darkPrimaryColor: '#f59e0b' },
          branding: { logoUrl: `${pages.origin}/teal.svg`, darkLogoUrl: `${pages.origin}/teal-dark.svg` },
          customCss: 'h1 { letter-spacing: 3px; } /* </style><script>document.title = "injected"</script> */',
        },
      })
    ).json()) as { id: string };
    const app = await createApplication(running, {
      type: 'Traditional',
      name: 'Acme Web',
      oidcClientMetadata: { redirectUris: [`${pages.origin}/callback`], postLogoutRedirectUris: [] },
    });
    const username = `teal_${newId(6).toLowerCase()}`;
    await createUser(running, [], { username }, PASSWORD);

    const plain = await freshPage(chromium.browser());
    try {
      await startSignIn(plain.page, app);
      expect(await buttonColor(plain.page), "the service's own blue").to.equal('rgb(53, 86, 216)');
      expect(await plain.page.getByRole('img').count(), 'no logo without the organization').to.equal(0);
      await startSignIn(plain.page, app, { organization_id: 'no-such-organization' });
      expect(await buttonColor(plain.page), 'an unknown organization changes nothing').to.equal('rgb(53, 86, 216)');
    } finally {
      await plain.context.close();
    }

    const { page, context } = await freshPage(chromium.browser());
    try {
      const { logto, title } = await startSignIn(page, app, { organization_id: organization.id });
      expect(title, 'the style sheet cannot end its element and run a script').to.equal('Sign in · Acme Web');
      expect(await page.locator('script').count()).to.equal(0);
      const image = page.getByRole('img', { name: 'Acme Web logo' });
      expect(await shown(image)).to.equal(`true 160 ${pages.origin}/teal.svg`);
      expect(await buttonColor(page)).to.equal('rgb(15, 118, 110)');
      expect(await headingSpacing(page), "the organization's style sheet applies (the page policy allows it)").to.equal(
        '3px',
      );

      await page.emulateMedia({ colorScheme: 'dark' });
      expect(await buttonColor(page), 'the dark primary color where dark is preferred').to.equal('rgb(245, 158, 11)');
      await page.reload();
      expect(await shown(image)).to.equal(`true 160 ${pages.origin}/teal-dark.svg`);
      await screenshot(page, 'organization-branding-dark');
      await page.emulateMedia({ colorScheme: 'light' });

      await page.getByRole('textbox', { name: /username/i }).fill(username);
      await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL((url) => url.href.startsWith(`${pages.origin}/callback`));
      await logto.handleSignInCallback(page.url());
      expect(await logto.isAuthenticated()).to.equal(true);
    } finally {
      await screenshot(page, 'organization-branding-signed-in');
      await context.close();
    }

    const patched = await running.request(`/api/organizations/${organization.id}`, {
      method: 'PATCH',
      json: {
        color: { primaryColor: '#0f766e', isDarkModeEnabled: false, darkPrimaryColor: '#f59e0b' },
        customCss: null,
      },
    });
    expect(patched.status).to.equal(200);
    const light = await freshPage(chromium.browser());
    try {
      await light.page.emulateMedia({ colorScheme: 'dark' });
      await startSignIn(light.page, app, { organization_id: organization.id });
      expect(await buttonColor(light.page), 'dark mode off: the primary color stays').to.equal('rgb(15, 118, 110)');
      expect(await headingSpacing(light.page)).to.equal('normal');
      await screenshot(light.page, 'organization-branding-light');
    } finally {
      await light.context.close();
    }
  });
});
