import { createHash } from 'node:crypto';
import { expect } from 'chai';
import * as client from 'openid-client';
import { Browser } from './browser.ts';
import { createApplication } from './fixtures.ts';
import type { RunningService } from './service.ts';

export const REDIRECT = 'http://127.0.0.1:9/callback';
export const FORM = 'application/x-www-form-urlencoded';

export interface Interaction {
  browser: Browser;
  /** The interaction's URL, `/interaction/:uid`; forms post to `${url}/login` and the like. */
  url: string;
  html: string;
  /** The CSRF token of the page's forms. */
  token: string;
}

/** A client of its own, and a browser that followed an authorization request to its sign-in page. */
export async function openSignIn(
  running: RunningService,
  options: { thirdParty?: boolean; params?: Record<string, string> } = {},
): Promise<Interaction> {
  const app = await createApplication(running, {
    type: 'SPA',
    isThirdParty: options.thirdParty,
    oidcClientMetadata: { redirectUris: [REDIRECT] },
  });
  const config = await client.discovery(new URL(`${running.baseUrl}/oidc`), app.id, undefined, client.None(), {
    execute: [client.allowInsecureRequests],
  });
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT,
    scope: 'openid',
    state: 's',
    code_challenge_method: 'S256',
    code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()),
    ...options.params,
  });
  const browser = new Browser();
  const landed = await browser.follow(url.href, REDIRECT);
  const html = await landed.res.text();
  expect(landed.res.status, html).to.equal(200);
  return { browser, url: landed.url, html, token: csrfToken(html) };
}

export function csrfToken(html: string): string {
  const match = /name="csrf_token" value="([^"]+)"/.exec(html);
  if (!match) throw new Error(`no CSRF token on page: ${html.slice(0, 200)}`);
  return match[1]!;
}

/** POSTs a form as the interaction's browser (with its cookies), without following redirects. */
export function post(
  interaction: Interaction,
  step: string,
  body: string | Uint8Array | Record<string, string>,
  headers: Record<string, string> = {},
) {
  return interaction.browser.request(`${interaction.url}${step}`, {
    method: 'POST',
    headers: { 'content-type': FORM, ...headers },
    body: typeof body === 'string' || body instanceof Uint8Array ? body : new URLSearchParams(body).toString(),
  });
}

/** The directives of a Content-Security-Policy header. */
export function directives(csp: string | null): Map<string, string[]> {
  const result = new Map<string, string[]>();
  for (const part of (csp ?? '').split(';')) {
    const [name, ...values] = part.trim().split(/\s+/);
    if (name) result.set(name.toLowerCase(), values);
  }
  return result;
}

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

/**
 * Asserts the headers every HTML page carries, that each inline `<style>` and `<script>` of the page is
 * allowed by its hash and nothing else is, and returns the policy's `form-action` sources.
 */
export function expectSecurePage(res: Response, html: string): string[] {
  expect(res.headers.get('content-type')).to.match(/^text\/html/);
  expect(res.headers.get('x-frame-options')).to.equal('DENY');
  expect(res.headers.get('x-content-type-options')).to.equal('nosniff');
  expect(res.headers.get('referrer-policy')).to.equal('no-referrer');
  const csp = directives(res.headers.get('content-security-policy'));
  expect(csp.get('default-src'), 'default-src').to.deep.equal(["'none'"]);
  expect(csp.get('frame-ancestors'), 'frame-ancestors').to.deep.equal(["'none'"]);
  expect(csp.get('base-uri'), 'base-uri').to.deep.equal(["'none'"]);
  const styles = [...html.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => sha256(m[1]!));
  for (const style of styles) expect(csp.get('style-src'), 'style-src').to.include(style);
  const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => sha256(m[1]!));
  expect(csp.get('script-src') ?? [], 'script-src').to.have.members(scripts);
  for (const [name, values] of csp) {
    expect(values, name).not.to.include("'unsafe-inline'");
    expect(values, name).not.to.include('*');
  }
  expect(csp.get('form-action'), 'form-action').to.be.an('array');
  return csp.get('form-action')!;
}
