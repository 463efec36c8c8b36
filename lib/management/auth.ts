import type { Middleware } from 'koa';
import { createLocalJWKSet, decodeJwt, jwtVerify, type JSONWebKeySet, type JWTPayload } from 'jose';
import { setBounded } from '../bounded-map.ts';
import { errors } from '../errors.ts';
import type { AuthAttempt, AuthFailureLimit } from '../rate-limits/auth-failures.ts';

/** Scopes of the management API resource. `all` grants everything; the others grant one capability each. */
export const MANAGEMENT_SCOPES = {
  all: 'all',
  createSubjectTokens: 'subject-tokens:create',
  readEvents: 'events:read',
} as const;

export interface ManagementPrincipal {
  clientId: string;
  /** The user behind the token, when a user (not an M2M application) holds it. */
  subject?: string;
  scopes: Set<string>;
}

export interface ManagementAuthOptions {
  issuer: string;
  /** The management API's indicator, and the other names tokens for it may carry. */
  audience: string[];
  publicKeys: JSONWebKeySet;
  /** Failed authentications per IP and per claimed client; none = unlimited. */
  failures?: AuthFailureLimit;
  /** Told of every request refused by that limit. */
  onLimited?: () => void;
}

/** The client a token says it belongs to, before it is verified: only to count a failure against. */
function claimedClientId(token: string | undefined): string | undefined {
  if (!token) return undefined;
  try {
    const claim = decodeJwt(token).client_id;
    return typeof claim === 'string' ? claim : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Bearer JWT verification for the management API: signature against the service's own keys, issuer,
 * audience = the management resource indicator, `typ: at+jwt`. The principal lands in `ctx.state.principal`.
 */
export function createManagementAuth(options: ManagementAuthOptions) {
  const keys = createLocalJWKSet(options.publicKeys);
  const verified = new VerifiedTokenCache(MAX_CACHED_TOKENS);

  async function verify(token: string): Promise<JWTPayload> {
    const cached = verified.get(token);
    if (cached) return cached;
    const { payload } = await jwtVerify(token, keys, {
      issuer: options.issuer,
      audience: options.audience,
      typ: 'at+jwt',
    });
    verified.set(token, payload);
    return payload;
  }

  const throttled = (retryAfterSeconds: number) => {
    options.onLimited?.();
    return errors.rateLimited(
      'request.too_many_requests',
      'too many failed authentications; try again later',
      retryAfterSeconds,
    );
  };

  /** A 401, or a 429 when this failure went past the failed-authentication limit. */
  async function refuse(attempt: AuthAttempt, message?: string): Promise<never> {
    const wait = await options.failures?.failed(attempt);
    throw wait === undefined ? errors.unauthorized(message) : throttled(wait);
  }

  const authenticate: Middleware = async (ctx, next) => {
    const header = ctx.get('authorization');
    const match = /^Bearer ([A-Za-z0-9._~+/-]+=*)$/i.exec(header);
    // A token verified before says which client it is; only an unknown one is decoded for its claim.
    const known = match ? verified.get(match[1]!) : undefined;
    const clientId = known
      ? typeof known.client_id === 'string'
        ? known.client_id
        : undefined
      : claimedClientId(match?.[1]);
    const attempt: AuthAttempt = { ip: ctx.ip, clientId };
    // While limited, even a valid token is refused: its holder waits like everyone behind the same address.
    const blocked = await options.failures?.blockedFor(attempt);
    if (blocked !== undefined) throw throttled(blocked);
    if (!match) return refuse(attempt);
    let payload: JWTPayload;
    try {
      payload = await verify(match[1]!);
    } catch {
      return refuse(attempt, 'the bearer token is invalid, expired or not meant for this API');
    }
    const principal: ManagementPrincipal = {
      clientId: typeof payload.client_id === 'string' ? payload.client_id : '',
      scopes: new Set(typeof payload.scope === 'string' ? payload.scope.split(' ') : []),
    };
    if (typeof payload.sub === 'string' && payload.sub !== principal.clientId) principal.subject = payload.sub;
    ctx.state.principal = principal;
    await next();
  };

  const requireScope =
    (scope: string): Middleware =>
    async (ctx, next) => {
      const principal = ctx.state.principal as ManagementPrincipal | undefined;
      if (!principal) throw errors.unauthorized();
      if (!principal.scopes.has(MANAGEMENT_SCOPES.all) && !principal.scopes.has(scope)) throw errors.forbidden(scope);
      await next();
    };

  return { authenticate, requireScope };
}

const MAX_CACHED_TOKENS = 10_000;

/**
 * Signature checks are the costliest part of a management request; a token already verified is trusted
 * again until its `exp`. Bounded: the oldest entry goes when the cache is full.
 */
class VerifiedTokenCache {
  readonly #entries = new Map<string, JWTPayload>();
  readonly #limit: number;

  constructor(limit: number) {
    this.#limit = limit;
  }

  get(token: string): JWTPayload | undefined {
    const payload = this.#entries.get(token);
    if (!payload) return undefined;
    if ((payload.exp ?? 0) * 1000 <= Date.now()) {
      this.#entries.delete(token);
      return undefined;
    }
    return payload;
  }

  set(token: string, payload: JWTPayload): void {
    if (typeof payload.exp !== 'number') return;
    setBounded(this.#entries, token, payload, this.#limit);
  }
}
