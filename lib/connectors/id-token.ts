import { createLocalJWKSet, errors as joseErrors, jwtVerify, type JSONWebKeySet, type JWTPayload } from 'jose';
import { errors } from '../errors.ts';
import type { IdTokenVerification } from './configs.ts';
import type { OutboundFetch } from './outbound.ts';

/**
 * An ID token checked as Logto's `idTokenVerificationConfig` asks, with jose: its signature by a key of the provider's
 * JWKS (fetched through the outbound policy), the client id as its audience, and whichever of issuer, algorithms,
 * clock tolerance, maximum age, subject, `typ` and `crit` the config names; then the nonce this sign-in sent.
 * Any failure is 401 `connector.social_id_token_invalid`, an unusable JWKS 400 `connector.invalid_response`.
 */
export async function verifyIdToken(
  fetch: OutboundFetch,
  idToken: unknown,
  options: { verification: IdTokenVerification; clientId: string; nonce: string },
): Promise<JWTPayload> {
  if (typeof idToken !== 'string' || !idToken)
    throw errors.connector('connector.social_id_token_invalid', 'the token endpoint answered no id_token');
  const { verification, clientId, nonce } = options;
  const keys = await jwks(fetch, verification.jwksUri);
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(idToken, createLocalJWKSet(keys), {
      audience: clientId,
      ...(verification.issuer !== undefined && { issuer: verification.issuer }),
      ...(verification.algorithms && { algorithms: verification.algorithms }),
      ...(verification.clockTolerance !== undefined && { clockTolerance: verification.clockTolerance }),
      ...(verification.maxTokenAge !== undefined && { maxTokenAge: verification.maxTokenAge }),
      ...(verification.subject && { subject: verification.subject }),
      ...(verification.typ && { typ: verification.typ }),
      ...(verification.crit && { crit: verification.crit }),
    }));
  } catch (error) {
    const reason =
      error instanceof joseErrors.JOSEError ? `${error.code}: ${error.message.slice(0, 160)}` : 'not a JWT';
    throw errors.connector('connector.social_id_token_invalid', `the ID token does not verify (${reason})`);
  }
  if (payload.nonce !== nonce)
    throw errors.connector(
      'connector.social_id_token_invalid',
      'the ID token does not carry the nonce this sign-in sent',
    );
  if (typeof payload.sub !== 'string' || !payload.sub)
    throw errors.connector('connector.social_id_token_invalid', 'the ID token names no sub');
  return payload;
}

async function jwks(fetch: OutboundFetch, url: string): Promise<JSONWebKeySet> {
  const response = await fetch(url, { method: 'GET', headers: { accept: 'application/json' } });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const keys = (parsed as { keys?: unknown } | undefined)?.keys;
  if (!response.ok || !Array.isArray(keys)) {
    throw errors.connector(
      'connector.invalid_response',
      `the JWKS at ${url.slice(0, 200)} answered ${response.status} without a key set`,
    );
  }
  return { keys: keys.filter((key): key is JSONWebKeySet['keys'][number] => Boolean(key) && typeof key === 'object') };
}
