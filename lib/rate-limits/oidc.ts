import type { Context, Middleware } from 'koa';
import Provider, { errors as oidcErrors, type KoaContextWithOIDC } from 'oidc-provider';
import type { AuthFailureLimit } from './auth-failures.ts';

/** The endpoints that authenticate clients with a secret: their 401s are failed client authentications. */
const CLIENT_AUTH_PATHS = new Set(['/oidc/token', '/oidc/token/introspection', '/oidc/token/revocation']);

/**
 * The OAuth error of a throttled client. RFC 6749 has no "too many requests" code; `temporarily_unavailable` is
 * its registered "try again later" code, so generic clients treat it as transient rather than as bad credentials
 * (`invalid_client` would tell an operator their correct secret is wrong). The status is 429 with `Retry-After`.
 */
export class ClientAuthThrottled extends oidcErrors.OIDCProviderError {
  constructor(retryAfterSeconds: number) {
    super(429, 'temporarily_unavailable');
    Object.assign(this, {
      error_description: `too many failed client authentications; retry after ${retryAfterSeconds} seconds`,
    });
  }
}

/** A known client past `TOKEN_RATE_LIMIT_PER_CLIENT`: the same transient OAuth error, saying which limit it hit. */
export class TokenRequestsThrottled extends oidcErrors.OIDCProviderError {
  constructor(retryAfterSeconds: number) {
    super(429, 'temporarily_unavailable');
    Object.assign(this, {
      error_description: `too many token requests by this client; retry after ${retryAfterSeconds} seconds`,
    });
  }
}

/** Where the middleware leaves the count of the client a request names in `Authorization: Basic`, read with its address. */
const CLIENT_COUNT = Symbol('failed authentications of the named client');

interface ClientCount {
  clientId: string;
  wait: number | undefined;
}

/**
 * The client id of `Authorization: Basic`, decoded as the provider decodes it; undefined for any other header. Only
 * a hint for reading its count early: the gate uses that read only for the very client the provider authenticates.
 */
function basicClientId(header: string): string | undefined {
  if (!/^basic /i.test(header)) return undefined;
  const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return undefined;
  try {
    return decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, '%20'));
  } catch {
    return undefined;
  }
}

function answerThrottled(ctx: Context, retryAfterSeconds: number): void {
  const error = new ClientAuthThrottled(retryAfterSeconds);
  ctx.status = 429;
  ctx.set('Retry-After', String(retryAfterSeconds));
  ctx.set('Cache-Control', 'no-store');
  ctx.body = { error: error.message, error_description: (error as { error_description?: string }).error_description };
}

/** The counters live in the key-value store; without it nothing can be counted, so nothing is let through either. */
function answerUnavailable(ctx: Context): void {
  ctx.status = 503;
  ctx.set('Cache-Control', 'no-store');
  ctx.body = { error: 'temporarily_unavailable', error_description: 'a backing store is unavailable; try again later' };
}

/**
 * Counts failed client authentications at the token, introspection and revocation endpoints (per IP and per
 * authenticated-as client) and answers 429 once either count is full: before the provider runs when the address
 * is limited, and in place of the 401 for a failure past the limit. A limited client's secret is refused inside
 * the provider by `clientGate`, before it is compared.
 */
export function clientAuthLimit(deps: { failures: AuthFailureLimit; onLimited: () => void }): Middleware {
  const { failures } = deps;
  return async (ctx, next) => {
    if (ctx.method !== 'POST' || !CLIENT_AUTH_PATHS.has(ctx.path)) return next();
    const ip = ctx.ip;
    // The client a Basic header names is read with the address, in one round trip; the gate then uses that read.
    const claimed = basicClientId(ctx.get('authorization'));
    let blocked: number | undefined;
    try {
      const counts = await failures.blockedEach({ ip, clientId: claimed });
      blocked = counts.ip;
      if (claimed !== undefined)
        (ctx.state as Record<symbol, ClientCount>)[CLIENT_COUNT] = { clientId: claimed, wait: counts.client };
    } catch {
      answerUnavailable(ctx);
      return;
    }
    if (blocked !== undefined) {
      deps.onLimited();
      answerThrottled(ctx, blocked);
      return;
    }
    await next();
    const clientId = (ctx.oidc as KoaContextWithOIDC['oidc'] | undefined)?.client?.clientId;
    if (ctx.status === 429) {
      // The per-client token-request limit answered with its own Retry-After and counted its own hit.
      if (ctx.response.get('Retry-After')) return;
      // The provider refused a limited client (ClientAuthThrottled): say when to come back.
      deps.onLimited();
      ctx.set('Retry-After', String((await failures.blockedFor({ ip, clientId }).catch(() => undefined)) ?? 1));
      return;
    }
    if (ctx.status !== 401) return;
    let wait: number | undefined;
    try {
      wait = await failures.failed({ ip, clientId });
    } catch {
      // The failure could not be counted: refusing it stays right, and says why it cannot be retried at once.
      answerUnavailable(ctx);
      return;
    }
    if (wait === undefined) return;
    deps.onLimited();
    answerThrottled(ctx, wait);
  };
}

/** For the provider's secret comparison: throws ClientAuthThrottled while the client's failure count is full. */
export function clientGate(failures: AuthFailureLimit) {
  return async (clientId: string): Promise<void> => {
    const state = Provider.ctx?.state as Record<symbol, ClientCount | undefined> | undefined;
    const read = state?.[CLIENT_COUNT];
    // Used once, and only for the client it was read for; any other comparison reads the count afresh.
    if (state && read) state[CLIENT_COUNT] = undefined;
    const wait = read?.clientId === clientId ? read.wait : await failures.blockedFor({ clientId });
    if (wait !== undefined) throw new ClientAuthThrottled(wait);
  };
}

/**
 * For the provider's client lookup at the token endpoint: counts the request against the client's token-request
 * window and throws TokenRequestsThrottled (with its Retry-After set) once it went past the limit. The lookup comes
 * after the provider parsed the body and before the secret is compared and the grant runs, so no token is minted.
 */
export function tokenRequestGate(count: (clientId: string) => Promise<number | undefined>) {
  return async (ctx: KoaContextWithOIDC, clientId: string): Promise<void> => {
    const wait = await count(clientId);
    if (wait === undefined) return;
    ctx.set('Retry-After', String(wait));
    throw new TokenRequestsThrottled(wait);
  };
}
