import { expect } from 'chai';
import { freshPage, screenshot, useChromium } from '../support/chromium.ts';
import { signInToConsole, useConsoleService } from './support/console.ts';

describe('browser: the API reference page at /api/docs, linked from the console (Chromium)', () => {
  const chromium = useChromium();
  const running = useConsoleService();

  it('is served with a strict CSP: a fresh style nonce, a blob: worker for search, never unsafe-inline; not cached', async () => {
    const res = await fetch(`${running.baseUrl}/api/docs`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('cache-control')).to.equal('no-store');
    const policy = res.headers.get('content-security-policy')!;
    expect(policy).not.to.include('unsafe-inline');
    expect(policy).to.include("script-src 'self'").and.match(/style-src 'self' 'nonce-[\w+/]+={0,2}'/)
      .and.include('worker-src blob:').and.include("connect-src 'self'").and.include("frame-ancestors 'none'");
    const html = await res.text();
    expect(html).not.to.match(/<script(?![^>]*\bsrc=)/).and.not.to.match(/<style/);
  });

  it('renders the OpenAPI document with Redoc from the console\'s link, with nothing blocked but Redoc\'s own logo from its CDN', async () => {
    const { page, context } = await freshPage(chromium.browser(), { width: 1280, height: 900 });
    await page.addInitScript({
      content: `addEventListener('securitypolicyviolation', (event) => console.log('csp-violation ' + JSON.stringify({
        directive: event.violatedDirective, blocked: event.blockedURI })));`,
    });
    const violations: Array<{ directive: string; blocked: string }> = [];
    page.on('console', (message) => {
      if (message.text().startsWith('csp-violation ')) violations.push(JSON.parse(message.text().slice('csp-violation '.length)));
    });
    try {
      await signInToConsole(page, running.consoleUrl());
      await page.getByRole('link', { name: 'API reference' }).click();
      await page.getByRole('heading', { name: /^Identity service API/, level: 1 }).waitFor({ timeout: 20_000 });
      await page.getByRole('heading', { name: 'Create an application', exact: false }).first().waitFor();
      expect(await page.getByRole('link', { name: 'Back to the console' }).getAttribute('href')).to.equal('/console');
      await screenshot(page, 'console-api-docs', { fullPage: false });
      // Redoc's styles and its search worker run under the policy; the "by Redocly" logo it fetches from its CDN is
      // the one thing refused, as connect-src and img-src say.
      const refused = violations.filter((violation) => !(violation.directive === 'img-src' && violation.blocked.startsWith('https://cdn.redoc.ly/')));
      expect(refused).to.deep.equal([]);
    } finally {
      await context.close();
    }
  });
});
