import { expect } from 'chai';
import * as client from 'openid-client';
import { Browser } from '../support/browser.ts';
import { createApplication } from '../support/fixtures.ts';
import { startService, type RunningService } from '../support/service.ts';
import { REDIRECT, directives, expectSecurePage } from '../support/security.ts';

describe('the logo on the sign-in pages and the image origin the page policy allows', () => {
  let running: RunningService;

  before(async () => {
    running = await startService();
  });
  after(() => running.close());

  async function signInPage(app: { id: string }) {
    const config = await client.discovery(new URL(`${running.baseUrl}/oidc`), app.id, undefined, client.None(), {
      execute: [client.allowInsecureRequests],
    });
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT,
      scope: 'openid',
      state: 's',
      code_challenge_method: 'S256',
      code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()),
    });
    const landed = await new Browser().follow(url.href, REDIRECT);
    const html = await landed.res.text();
    expect(landed.res.status, html).to.equal(200);
    expectSecurePage(landed.res, html);
    return { html, imgSrc: directives(landed.res.headers.get('content-security-policy')).get('img-src') };
  }

  const spa = (name: string, logoUri?: string) =>
    createApplication(running, {
      type: 'SPA',
      name,
      oidcClientMetadata: { redirectUris: [REDIRECT], ...(logoUri && { logoUri }) },
    });

  it("shows the application's logo and allows exactly its origin", async () => {
    const app = await spa('Logo & Co', 'https://cdn.example.com/brand/logo.png?v=2');
    const { html, imgSrc } = await signInPage(app);
    expect(html).to.include('<img src="https://cdn.example.com/brand/logo.png?v=2" alt="Logo &#38; Co logo">');
    expect(html).to.include('Sign in to Logo &#38; Co');
    expect(imgSrc).to.deep.equal(['https://cdn.example.com']);
  });

  it("falls back to the sign-in experience's logo, and without any logo allows no image at all", async () => {
    const plain = await spa('Plain');
    const without = await signInPage(plain);
    expect(without.html).not.to.include('<img');
    expect(without.imgSrc).to.equal(undefined);

    const patched = await running.request('/api/sign-in-exp', {
      method: 'PATCH',
      json: { branding: { logoUrl: 'http://127.0.0.1:9/logo.svg' } },
    });
    expect(patched.status).to.equal(200);
    try {
      const branded = await signInPage(plain);
      expect(branded.html).to.include('<img src="http://127.0.0.1:9/logo.svg" alt="Plain logo">');
      expect(branded.imgSrc).to.deep.equal(['http://127.0.0.1:9']);
    } finally {
      await running.request('/api/sign-in-exp', { method: 'PATCH', json: { branding: {} } });
    }
  });

  it("shows the sign-in experience's dark logo where the browser prefers dark, and allows both origins", async () => {
    const plain = await spa('Two tones');
    const branding = {
      logoUrl: 'https://light.example.com/logo.svg',
      darkLogoUrl: 'https://dark.example.com/logo.svg',
    };
    expect((await running.request('/api/sign-in-exp', { method: 'PATCH', json: { branding } })).status).to.equal(200);
    try {
      const { html, imgSrc } = await signInPage(plain);
      expect(html).to.include(
        '<picture><source media="(prefers-color-scheme: dark)" srcset="https://dark.example.com/logo.svg">' +
          '<img src="https://light.example.com/logo.svg" alt="Two tones logo"></picture>',
      );
      expect(imgSrc).to.deep.equal(['https://light.example.com', 'https://dark.example.com']);

      const darkOnly = { darkLogoUrl: 'https://dark.example.com/only.svg' };
      expect(
        (await running.request('/api/sign-in-exp', { method: 'PATCH', json: { branding: darkOnly } })).status,
      ).to.equal(200);
      const alone = await signInPage(plain);
      expect(alone.html, 'a dark logo alone is the logo').to.include(
        '<picture><img src="https://dark.example.com/only.svg" alt="Two tones logo"></picture>',
      );

      const own = await signInPage(await spa('Own logo', 'https://own.example.com/logo.png'));
      expect(own.html, "the application's logo replaces both").not.to.include('dark.example.com');
      expect(own.imgSrc).to.deep.equal(['https://own.example.com']);
    } finally {
      await running.request('/api/sign-in-exp', { method: 'PATCH', json: { branding: {} } });
    }
  });

  it('takes only absolute http(s) logo URLs, and null removes the logo', async () => {
    for (const logoUri of [
      'javascript:alert(1)',
      'data:image/png;base64,AAAA',
      '/logo.png',
      'ftp://example.com/logo.png',
    ]) {
      const res = await running.request('/api/applications', {
        method: 'POST',
        json: { name: 'Bad logo', type: 'SPA', oidcClientMetadata: { redirectUris: [REDIRECT], logoUri } },
      });
      expect(res.status, logoUri).to.equal(400);
      expect(((await res.json()) as { code: string }).code).to.equal('guard.invalid_input');
    }
    const app = await spa('Removed logo', 'https://example.com/logo.png');
    const res = await running.request(`/api/applications/${app.id}`, {
      method: 'PATCH',
      json: { oidcClientMetadata: { logoUri: null } },
    });
    expect(res.status).to.equal(200);
    const body = (await res.json()) as { oidcClientMetadata: Record<string, unknown> };
    expect(body.oidcClientMetadata).to.deep.equal({ redirectUris: [REDIRECT], postLogoutRedirectUris: [] });
    expect((await signInPage(app)).imgSrc).to.equal(undefined);
  });
});
