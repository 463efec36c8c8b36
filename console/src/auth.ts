import { config, servicePath } from './config.ts';

/**
 * Sign-in as a public client: the authorization code flow with PKCE against this service, asking for the management
 * API. The tokens live in sessionStorage: they end with the tab, and no other origin can read them.
 */
const SIGN_IN_KEY = 'console.sign-in';
const SESSION_KEY = 'console.session';
export const MANAGEMENT_SCOPE = 'all';

export interface Session {
  accessToken: string;
  idToken: string;
  expiresAt: number;
  scopes: string[];
  /** Who signed in, from the ID token (for the header). */
  name: string;
}

const base64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
const randomString = () => base64url(crypto.getRandomValues(new Uint8Array(32)));

async function challengeOf(verifier: string): Promise<string> {
  return base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))));
}

function claimsOf(jwt: string): Record<string, unknown> {
  const payload = jwt.split('.')[1] ?? '';
  const json = atob(payload.replace(/-/g, '+').replace(/_/g, '/'));
  return JSON.parse(new TextDecoder().decode(Uint8Array.from(json, (c) => c.charCodeAt(0)))) as Record<string, unknown>;
}

export function currentSession(): Session | undefined {
  const stored = sessionStorage.getItem(SESSION_KEY);
  if (!stored) return undefined;
  const session = JSON.parse(stored) as Session;
  if (session.expiresAt - 30_000 < Date.now()) {
    sessionStorage.removeItem(SESSION_KEY);
    return undefined;
  }
  return session;
}

export const isConsoleAdmin = (session: Session) => session.scopes.includes(MANAGEMENT_SCOPE);

/** Sends the browser to the sign-in page; it comes back to the callback, then to `returnTo`. */
export async function startSignIn(returnTo: string): Promise<void> {
  const verifier = randomString();
  const state = randomString();
  sessionStorage.setItem(SIGN_IN_KEY, JSON.stringify({ verifier, state, returnTo }));
  const params = new URLSearchParams({
    client_id: config.clientId,
    response_type: 'code',
    redirect_uri: config.callback,
    state,
    scope: `openid profile ${MANAGEMENT_SCOPE}`,
    resource: config.managementApi,
    code_challenge: await challengeOf(verifier),
    code_challenge_method: 'S256',
  });
  location.assign(`${servicePath}/oidc/auth?${params}`);
}

export class SignInError extends Error {}

/** Redeems the code the callback URL carries; answers where to go next. */
export async function completeSignIn(url: URL): Promise<string> {
  const pending = JSON.parse(sessionStorage.getItem(SIGN_IN_KEY) ?? 'null') as {
    verifier: string;
    state: string;
    returnTo: string;
  } | null;
  sessionStorage.removeItem(SIGN_IN_KEY);
  const error = url.searchParams.get('error');
  if (error) throw new SignInError(url.searchParams.get('error_description') ?? error);
  if (!pending || url.searchParams.get('state') !== pending.state) {
    throw new SignInError('This sign-in was not started from this tab, or it was already completed. Sign in again.');
  }
  const res = await fetch(`${servicePath}/oidc/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: url.searchParams.get('code') ?? '',
      redirect_uri: config.callback,
      code_verifier: pending.verifier,
      client_id: config.clientId,
      resource: config.managementApi,
    }),
  });
  const body = (await res.json()) as Record<string, unknown>;
  if (!res.ok)
    throw new SignInError(String(body.error_description ?? body.error ?? `the token endpoint answered ${res.status}`));
  const idToken = String(body.id_token);
  const claims = claimsOf(idToken);
  const session: Session = {
    accessToken: String(body.access_token),
    idToken,
    expiresAt: Date.now() + Number(body.expires_in) * 1000,
    scopes: String(body.scope ?? '')
      .split(' ')
      .filter(Boolean),
    name: String(claims.preferred_username ?? claims.name ?? claims.sub),
  };
  sessionStorage.setItem(SESSION_KEY, JSON.stringify(session));
  return pending.returnTo;
}

/** Forgets the tokens here and ends the session at the service (it asks the user to confirm). */
export function signOut(session: Session | undefined): void {
  sessionStorage.removeItem(SESSION_KEY);
  const params = new URLSearchParams({ client_id: config.clientId, post_logout_redirect_uri: config.signedOut });
  if (session) params.set('id_token_hint', session.idToken);
  location.assign(`${servicePath}/oidc/session/end?${params}`);
}

/** Drops an expired or refused token, so the next screen asks to sign in again. */
export function forgetSession(): void {
  sessionStorage.removeItem(SESSION_KEY);
}
