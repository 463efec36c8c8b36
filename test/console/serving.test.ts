import { expect } from 'chai';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import mount from 'koa-mount';
import { pino } from 'pino';
import { createIdentityService } from '../../app/index.ts';
import { startService, type RunningService } from '../support/service.ts';

/** The hashed script and stylesheet URLs a console page names. */
function assetUrls(html: string): string[] {
  return [...html.matchAll(/(?:src|href)="([^"]+\/assets\/[^"]+)"/g)].map((found) => found[1]!);
}

function expectStrictPolicy(policy: string | null): void {
  expect(policy, 'Content-Security-Policy').to.be.a('string');
  expect(policy).not.to.include('unsafe-inline');
  expect(policy).not.to.include('unsafe-eval');
  expect(policy)
    .to.include("script-src 'self'")
    .and.include("style-src 'self'")
    .and.include("frame-ancestors 'none'")
    .and.include("default-src 'none'");
}

describe('console: how the service serves it', () => {
  let running: RunningService;
  before(async () => {
    running = await startService();
  });
  after(() => running.close());

  it('serves the page with a strict CSP and no caching, for the console and any path below it', async () => {
    for (const path of ['/console', '/console/', '/console/applications/some-id']) {
      const res = await fetch(`${running.baseUrl}${path}`);
      expect(res.status, path).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^text\/html/);
      expectStrictPolicy(res.headers.get('content-security-policy'));
      expect(res.headers.get('cache-control')).to.equal('no-store');
      expect(res.headers.get('x-frame-options')).to.equal('DENY');
      const html = await res.text();
      expect(html).not.to.match(/<script(?![^>]*\bsrc=)/, 'no inline script');
      expect(html).not.to.match(/<style/, 'no inline style');
      expect(html).not.to.match(/ style=/, 'no style attribute');
      expect(assetUrls(html)).to.have.length.of.at.least(2);
    }
  });

  it('serves content-hashed assets cached for a year as immutable, and 404 for any other asset name', async () => {
    const html = await (await fetch(`${running.baseUrl}/console`)).text();
    const urls = assetUrls(html);
    expect(urls.some((url) => url.endsWith('.js'))).to.equal(true);
    expect(urls.some((url) => url.endsWith('.css'))).to.equal(true);
    for (const url of urls) {
      expect(url, 'a content hash in the name').to.match(/\/assets\/[\w-]+-[A-Z0-9]{8}\.(js|css)$/);
      const res = await fetch(`${running.baseUrl}${url}`);
      expect(res.status, url).to.equal(200);
      expect(res.headers.get('cache-control')).to.equal('public, max-age=31536000, immutable');
      expect(res.headers.get('content-type')).to.match(url.endsWith('.js') ? /^text\/javascript/ : /^text\/css/);
      expect(res.headers.get('x-content-type-options')).to.equal('nosniff');
    }
    for (const missing of [
      '/console/assets/console-AAAAAAAA.js',
      '/console/assets/%2e%2e%2fmanifest.json',
      '/console/assets/',
    ]) {
      expect((await fetch(`${running.baseUrl}${missing}`)).status, missing).to.equal(404);
    }
    const post = await fetch(`${running.baseUrl}/console/applications`, { method: 'POST' });
    expect(post.status).to.equal(405);
  });

  it('hands the page its configuration in a meta element: the service URL, its own client and the management API', async () => {
    const html = await (await fetch(`${running.baseUrl}/console`)).text();
    const content = /<meta name="app-config" content="([^"]+)">/.exec(html)?.[1];
    const config = JSON.parse(
      content!.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code))),
    ) as Record<string, string>;
    expect(config.styleNonce).to.match(/^[A-Za-z0-9+/]{22}==$/);
    const policy = (await fetch(`${running.baseUrl}/console`)).headers.get('content-security-policy')!;
    expect(policy).to.match(/style-src 'self' 'nonce-[A-Za-z0-9+/]{22}=='/);
    expect(policy, 'a fresh nonce for every page').not.to.include(config.styleNonce!);
    delete config.styleNonce;
    expect(config).to.deep.equal({
      baseUrl: running.baseUrl,
      clientId: 'console',
      managementApi: `${running.baseUrl}/api`,
      home: `${running.baseUrl}/console`,
      callback: `${running.baseUrl}/console/callback`,
      signedOut: `${running.baseUrl}/console/signed-out`,
    });
  });

  it('registers the console as a built-in public application that cannot be deleted, and restores its redirect URIs at start', async () => {
    const app = (await (await running.request('/api/applications/console')).json()) as Record<string, any>;
    expect(app.type).to.equal('SPA');
    expect(app.isThirdParty).to.equal(false);
    expect(app.oidcClientMetadata.redirectUris).to.deep.equal([`${running.baseUrl}/console/callback`]);
    const deleted = await running.request('/api/applications/console', { method: 'DELETE' });
    expect(deleted.status).to.equal(422);
    expect(((await deleted.json()) as { code: string }).code).to.equal('application.protected');
  });
});

describe('console: under a mount prefix', () => {
  it('names its assets and its configuration under the prefix, and serves them there', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const service = await createIdentityService({
      env: {
        STORAGE: 'memory',
        BASE_URL: `${origin}/auth`,
        ADMIN_CLIENT_ID: 'mounted-admin',
        ADMIN_CLIENT_SECRET: 'mounted-admin-secret-123',
      },
      logger: pino({ level: 'silent' }),
      print: () => {},
    });
    const host = new Koa();
    host.use(mount('/auth', service.app));
    server.on('request', host.callback());
    try {
      const res = await fetch(`${origin}/auth/console/users`);
      expect(res.status).to.equal(200);
      const html = await res.text();
      const urls = assetUrls(html);
      expect(urls.length).to.be.greaterThan(0);
      for (const url of urls) {
        expect(url).to.match(/^\/auth\/console\/assets\//);
        expect((await fetch(`${origin}${url}`)).status).to.equal(200);
      }
      expect(html).to.include(`${origin}/auth/console/callback`);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await service.close();
    }
  });
});
