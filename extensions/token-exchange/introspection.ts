import type Provider from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { createLocalJWKSet, decodeJwt, jwtVerify, type JSONWebKeySet, type JWTPayload } from 'jose';
import { IMPERSONATION_CLAIM } from '../../lib/impersonation/record.ts';

export interface ImpersonationIntrospectionDeps {
  issuer: string;
  publicKeys: JSONWebKeySet;
  /** Whether the impersonation's token may still be honoured. */
  isActive: (impersonationId: string) => Promise<boolean>;
  /** The introspection policy: whether this client may learn about a token of that client and audience. */
  allowed: (
    client: { clientId: string },
    token: { kind: string; clientId: string | undefined; aud: string | string[] | undefined },
  ) => Promise<boolean>;
}

const INACTIVE = { active: false };

function claimOf(token: unknown): string | undefined {
  if (typeof token !== 'string') return undefined;
  try {
    const value = decodeJwt(token)[IMPERSONATION_CLAIM];
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

function describe(payload: JWTPayload): Record<string, unknown> {
  const { sub, client_id: clientId, exp, iat, iss, jti, aud, scope, act, organization_id: organizationId } = payload;
  return {
    active: true,
    sub,
    client_id: clientId,
    exp,
    iat,
    iss,
    jti,
    aud,
    scope,
    token_type: 'Bearer',
    act,
    organization_id: organizationId,
    [IMPERSONATION_CLAIM]: payload[IMPERSONATION_CLAIM],
  };
}

/**
 * Introspection of impersonation JWTs. The provider refuses to introspect any JWT (400 `unsupported_token_type`), after
 * it authenticated the client; for a JWT naming an impersonation, this answers instead, under the same policy as for
 * opaque tokens: `active: true` with its claims while the signature holds, it is unexpired and its impersonation active,
 * `active: false` once revoked or expired, or to a client the policy does not let see it. Other JWTs keep the
 * provider's answer.
 */
export function introspectImpersonationJwts(provider: Provider, deps: ImpersonationIntrospectionDeps): void {
  const keys = createLocalJWKSet(deps.publicKeys);
  provider.use(async (ctx, next) => {
    await next();
    const { oidc } = ctx as KoaContextWithOIDC;
    if (oidc?.route !== 'introspection' || ctx.status !== 400 || !oidc.client) return;
    if ((ctx.body as { error?: unknown } | undefined)?.error !== 'unsupported_token_type') return;
    const token = oidc.params?.token;
    const impersonationId = claimOf(token);
    if (!impersonationId) return;
    ctx.status = 200;
    ctx.body = INACTIVE;
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token as string, keys, { issuer: deps.issuer, typ: 'at+jwt' }));
    } catch {
      return;
    }
    const clientId = typeof payload.client_id === 'string' ? payload.client_id : undefined;
    const aud = payload.aud;
    if (!(await deps.allowed(oidc.client, { kind: 'AccessToken', clientId, aud }))) return;
    if (!(await deps.isActive(impersonationId))) return;
    ctx.body = describe(payload);
  });
}
