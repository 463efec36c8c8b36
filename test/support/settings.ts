import { expect } from 'chai';
import * as client from 'openid-client';
import { decodeJwt } from 'jose';
import { Browser, formAction } from './browser.ts';
import { createApplication, createUser, introspectAsClient } from './fixtures.ts';
import type { RunningService } from './service.ts';

export const REDIRECT = 'http://127.0.0.1:9/callback';
export const PASSWORD = 'correct horse battery';

export interface App {
  id: string;
  secret?: string;
}

/** An interactive application with the given settings, through the management API. */
export function createInteractiveApp(
  running: RunningService,
  type: 'Traditional' | 'SPA' | 'Native',
  customClientMetadata: Record<string, unknown> = {},
): Promise<App> {
  const redirectUris = [type === 'Native' ? 'com.example.app:/callback' : REDIRECT];
  return createApplication(running, { type, oidcClientMetadata: { redirectUris }, customClientMetadata });
}

/** A user who signs in with `PASSWORD`. */
export async function createSignInUser(running: RunningService): Promise<{ id: string; username: string }> {
  const user = await createUser(running, [], {}, PASSWORD);
  return { id: user.id, username: String(user.username) };
}

export async function clientConfig(running: RunningService, app: App): Promise<client.Configuration> {
  return client.discovery(
    new URL(`${running.baseUrl}/oidc`),
    app.id,
    app.secret,
    app.secret ? undefined : client.None(),
    {
      execute: [client.allowInsecureRequests],
    },
  );
}

export interface Authorized {
  config: client.Configuration;
  /** The redirect back to the client, carrying the code. */
  callback: URL;
  verifier: string;
}

/**
 * Runs an authorization request through the sign-in page (skipped when `browser` is already signed in) and through
 * the consent page when one is shown, and stops at the client's redirect URI.
 */
export async function authorize(
  running: RunningService,
  app: App,
  username: string,
  params: Record<string, string>,
  browser = new Browser(),
): Promise<Authorized> {
  const config = await clientConfig(running, app);
  const verifier = client.randomPKCECodeVerifier();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT,
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state: 'st',
    ...params,
  });
  let step = await browser.follow(url.href, REDIRECT);
  for (let pages = 0; pages < 3 && !step.url.startsWith(REDIRECT); pages += 1) {
    const page = await step.res.text();
    expect(step.res.status, page.slice(0, 300)).to.equal(200);
    const signIn: Record<string, string> = /type="password"/.test(page)
      ? { identifier: username, password: PASSWORD }
      : {};
    step = await browser.submit(formAction(page), signIn, REDIRECT);
  }
  expect(step.url.startsWith(REDIRECT), `ended on ${step.url}`).to.equal(true);
  return { config, callback: new URL(step.url), verifier };
}

/** The whole authorization code flow with a real OAuth client: the token response. */
export async function signIn(
  running: RunningService,
  app: App,
  username: string,
  params: Record<string, string>,
  browser?: Browser,
): Promise<client.TokenEndpointResponse & client.TokenEndpointResponseHelpers> {
  const { config, callback, verifier } = await authorize(running, app, username, params, browser);
  return client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: 'st' });
}

/** `exp - iat` of a JWT. */
export function lifetimeOf(jwt: string): number {
  const { exp, iat } = decodeJwt(jwt);
  return exp! - iat!;
}

/** Introspects a token as the application that holds it; `exp - iat` of an active token. */
export async function introspectedLifetime(running: RunningService, app: App, token: string): Promise<number> {
  const body = (await introspectAsClient(running, app, token)) as { active: boolean; exp?: number; iat?: number };
  expect(body.active, JSON.stringify(body)).to.equal(true);
  return body.exp! - body.iat!;
}

/** A refresh-token grant as a form POST (public clients send their id); status and body. */
export async function refresh(
  running: RunningService,
  app: App,
  refreshToken: string,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  const form = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken });
  if (app.secret) headers.authorization = `Basic ${Buffer.from(`${app.id}:${app.secret}`).toString('base64')}`;
  else form.set('client_id', app.id);
  const res = await fetch(`${running.baseUrl}/oidc/token`, { method: 'POST', headers, body: form });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}
