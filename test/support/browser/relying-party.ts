/**
 * A real OAuth client for browser tests: openid-client running the authorization code flow with PKCE, with its
 * own loopback web server for the redirect URI, the post-logout page and its logo.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as client from 'openid-client';
import type { Page } from 'playwright-core';
import { createApplication } from '../fixtures.ts';
import type { RunningService } from '../service.ts';

const LOGO = `<svg xmlns="http://www.w3.org/2000/svg" width="160" height="48" viewBox="0 0 160 48">
<rect width="160" height="48" rx="10" fill="#0f766e"/><text x="80" y="31" font-family="sans-serif" font-size="18" fill="#fff" text-anchor="middle">Acme Notes</text></svg>`;

export type Tokens = client.TokenEndpointResponse & client.TokenEndpointResponseHelpers;

export interface RelyingParty {
  app: { id: string; name: string };
  origin: string;
  callback: string;
  signedOut: string;
  logo: string;
  /** How many times the browser fetched the logo. */
  logoRequests(): number;
  /** Starts a sign-in: the browser goes to the authorization endpoint; `finish` redeems the code it comes back with. */
  signIn(page: Page): Promise<{ finish(): Promise<Tokens> }>;
  /** RP-initiated logout: the browser goes to the end-session endpoint with the ID token. */
  signOut(page: Page, idToken: string): Promise<void>;
  close(): Promise<void>;
}

export async function startRelyingParty(running: RunningService, name = 'Acme Notes'): Promise<RelyingParty> {
  let logoHits = 0;
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://local').pathname;
    if (path === '/logo.svg') {
      logoHits += 1;
      res.writeHead(200, { 'content-type': 'image/svg+xml' }).end(LOGO);
      return;
    }
    const title =
      path === '/callback' ? 'Back at Acme Notes' : path === '/signed-out' ? 'Signed out of Acme Notes' : 'Not found';
    res
      .writeHead(path === '/callback' || path === '/signed-out' ? 200 : 404, {
        'content-type': 'text/html; charset=utf-8',
      })
      .end(`<!doctype html><html lang="en"><title>${title}</title><h1>${title}</h1></html>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const callback = `${origin}/callback`;
  const signedOut = `${origin}/signed-out`;
  const logo = `${origin}/logo.svg`;
  const created = await createApplication(running, {
    name,
    type: 'Traditional',
    oidcClientMetadata: { redirectUris: [callback], postLogoutRedirectUris: [signedOut], logoUri: logo },
  });
  const app = { id: created.id, name };
  const config = await client.discovery(new URL(`${running.baseUrl}/oidc`), app.id, created.secret, undefined, {
    execute: [client.allowInsecureRequests],
  });

  return {
    app,
    origin,
    callback,
    signedOut,
    logo,
    logoRequests: () => logoHits,
    async signIn(page) {
      const verifier = client.randomPKCECodeVerifier();
      const state = client.randomState();
      const url = client.buildAuthorizationUrl(config, {
        redirect_uri: callback,
        scope: 'openid profile email',
        state,
        code_challenge: await client.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
      });
      await page.goto(url.href);
      return {
        async finish() {
          await page.waitForURL((current) => current.href.startsWith(callback));
          return client.authorizationCodeGrant(config, new URL(page.url()), {
            pkceCodeVerifier: verifier,
            expectedState: state,
          });
        },
      };
    },
    async signOut(page, idToken) {
      await page.goto(
        client.buildEndSessionUrl(config, { id_token_hint: idToken, post_logout_redirect_uri: signedOut }).href,
      );
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
