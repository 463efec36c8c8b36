/**
 * Account API test support: a real application signs a user in through the authorization-code flow over HTTP
 * (the sign-in page, PKCE, the token endpoint) and keeps the access token it gets, as an app calling the Account
 * API on its user's behalf would.
 */
import { randomBytes } from 'node:crypto';
import * as client from 'openid-client';
import { Browser } from './browser.ts';
import { createApplication } from './fixtures.ts';
import type { RunningService } from './service.ts';
import { codeFrom, type Mailbox } from './mailbox.ts';
import { REDIRECT, signInForm } from './sign-in-form.ts';

export const ALL_SCOPES = 'openid profile email phone custom_data identities';

export interface AccountClient {
  app: { id: string; name: string };
  /**
   * Signs the user in with a password and returns the access token; without `resource` in `extra`, the opaque
   * token issued for the userinfo endpoint, which is what the Account API takes.
   */
  signIn(identifier: string, password: string, scope?: string, extra?: Record<string, string>): Promise<string>;
  /** Revokes a token at the revocation endpoint, as the application would at sign-out. */
  revoke(token: string): Promise<void>;
}

export async function accountClient(running: RunningService): Promise<AccountClient> {
  const name = `Notes ${randomBytes(3).toString('hex')}`;
  const created = await createApplication(running, {
    type: 'SPA',
    name,
    oidcClientMetadata: { redirectUris: [REDIRECT] },
  });
  const app = { id: created.id, name };
  const config = await client.discovery(new URL(`${running.baseUrl}/oidc`), app.id, undefined, client.None(), {
    execute: [client.allowInsecureRequests],
  });
  return {
    app,
    async signIn(identifier, password, scope = ALL_SCOPES, extra = {}) {
      const verifier = client.randomPKCECodeVerifier();
      const url = client.buildAuthorizationUrl(config, {
        redirect_uri: REDIRECT,
        scope,
        state: 'state',
        code_challenge_method: 'S256',
        code_challenge: await client.calculatePKCECodeChallenge(verifier),
        ...extra,
      });
      const browser = new Browser();
      const landed = await browser.follow(url.href, REDIRECT);
      const form = signInForm(await landed.res.text(), landed.url);
      const result = await browser.submit(form.action, { ...form.hidden, identifier, password }, REDIRECT);
      if (!result.url.startsWith(REDIRECT))
        throw new Error(`sign-in did not complete: ${result.res.status} ${result.url}`);
      // A token for the API the authorization named is asked for by name, as the code's own is the userinfo one.
      const tokens = await client.authorizationCodeGrant(
        config,
        new URL(result.url),
        {
          pkceCodeVerifier: verifier,
          expectedState: 'state',
        },
        extra.resource ? { resource: extra.resource } : undefined,
      );
      return tokens.access_token;
    },
    revoke: (token) => client.tokenRevocation(config, token),
  };
}

/** Calls the Account API with the user's token (and a verification record id in `logto-verification-id`). */
export function asUser(running: RunningService, token: string) {
  return async (path: string, init: { method?: string; json?: unknown; verification?: string } = {}) => {
    const headers: Record<string, string> = {};
    if (init.verification) headers['logto-verification-id'] = init.verification;
    const res = await running.request(path, { method: init.method ?? 'GET', json: init.json, token, headers });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : undefined };
  };
}

type UserCall = ReturnType<typeof asUser>;

/** A verification record proving the user's identity by their password. */
export async function passwordRecord(me: UserCall, password: string): Promise<string> {
  const answer = await me('/api/verifications/password', { method: 'POST', json: { password } });
  if (answer.status !== 201)
    throw new Error(`password verification failed: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body!.verificationRecordId as string;
}

/** A verified code record for an address or number: `readCode` fetches the code that was sent there. */
export async function codeRecord(
  me: UserCall,
  identifier: { type: 'email' | 'phone'; value: string },
  readCode: () => Promise<string>,
): Promise<string> {
  const sent = await me('/api/verifications/verification-code', { method: 'POST', json: { identifier } });
  if (sent.status !== 201) throw new Error(`sending a code failed: ${sent.status} ${JSON.stringify(sent.body)}`);
  const verified = await me('/api/verifications/verification-code/verify', {
    method: 'POST',
    json: { identifier, verificationId: sent.body!.verificationRecordId, code: await readCode() },
  });
  if (verified.status !== 200)
    throw new Error(`verifying a code failed: ${verified.status} ${JSON.stringify(verified.body)}`);
  return verified.body!.verificationRecordId as string;
}

/** A verified code record for an email address: the code is read from the message the SMTP server received. */
export const emailRecord = (me: UserCall, mailbox: Mailbox, address: string) =>
  codeRecord(me, { type: 'email', value: address }, async () =>
    codeFrom(await mailbox.waitFor(address, { timeoutMs: 15_000 })),
  );
