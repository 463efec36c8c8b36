import { expect } from 'chai';
import { freshPage, screenshot, useChromium } from '../../support/chromium.ts';
import { signInToConsole, useConsoleService } from '../../support/browser/console.ts';

describe('browser: the API reference page at /api/docs, linked from the console (Chromium)', () => {
  const chromium = useChromium();
  const running = useConsoleService();

  it('is served with a strict CSP: a fresh style nonce, a blob: worker for search, never unsafe-inline; not cached', async () => {
    const res = await fetch(`${running.baseUrl}/api/docs`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('cache-control')).to.equal('no-store');
    const policy = res.headers.get('content-security-policy')!;
    expect(policy).not.to.include('unsafe-inline');
    expect(policy)
      .to.include("script-src 'self'")
      .and.match(/style-src 'self' 'nonce-[\w+/]+={0,2}'/)
      .and.include('worker-src blob:')
      .and.include("connect-src 'self'")
      .and.include("frame-ancestors 'none'");
    const html = await res.text();
    expect(html)
      .not.to.match(/<script(?![^>]*\bsrc=)/)
      .and.not.to.match(/<style/);
  });

  it("renders the OpenAPI document with Redoc from the console's link, every request the pages make to this origin, nothing blocked", async () => {
    const { page, context } = await freshPage(chromium.browser(), { width: 1280, height: 900 });
    await page.addInitScript({
      content: `addEventListener('securitypolicyviolation', (event) => console.log('csp-violation ' + JSON.stringify({
        directive: event.violatedDirective, blocked: event.blockedURI })));`,
    });
    const violations: Array<{ directive: string; blocked: string }> = [];
    page.on('console', (message) => {
      if (message.text().startsWith('csp-violation '))
        violations.push(JSON.parse(message.text().slice('csp-violation '.length)));
    });
    // Every request of the console, the sign-in pages and the reference page, their workers' included.
    const requested: string[] = [];
    context.on('request', (request) => requested.push(request.url()));
    try {
      await signInToConsole(page, running.consoleUrl());
      await page.getByRole('link', { name: 'API reference' }).click();
      await page.getByRole('heading', { name: /^Identity service API/, level: 1 }).waitFor({ timeout: 20_000 });
      await page.getByRole('heading', { name: 'Create an application', exact: false }).first().waitFor();
      expect(await page.getByRole('link', { name: 'Back to the console' }).getAttribute('href')).to.equal('/console');
      // The attribution Redoc puts at the foot of its menu is there, as text, without the logo it would fetch.
      await page.getByRole('link', { name: 'API docs by Redocly' }).waitFor();
      await page.waitForLoadState('networkidle');
      await screenshot(page, 'console-api-docs', { fullPage: false });
      const origin = new URL(running.baseUrl).origin;
      expect(
        requested.some((url) => url.includes('/api/swagger.json')),
        'the OpenAPI document was fetched',
      ).to.equal(true);
      expect(requested.filter((url) => !url.startsWith('data:') && new URL(url).origin !== origin)).to.deep.equal([]);
      expect(violations).to.deep.equal([]);
    } finally {
      await context.close();
    }
  });
});
