import { errors as oidcErrors, type KoaContextWithOIDC } from 'oidc-provider';
import { ExchangeRefused, type ExchangePlan, type Impersonation } from '../../lib/impersonation/library.ts';
import { tokenExchangeAllowed } from '../../lib/applications/clients.ts';
import {
  ACCESS_TOKEN_TYPE,
  IMPERSONATION_TOKEN_TYPE,
  TOKEN_EXCHANGE_GRANT,
  TOKEN_EXCHANGE_GTY,
} from '../../lib/impersonation/grant.ts';
import type { Application } from '../../lib/applications/repository.ts';
import { capLifetime, newAccessToken } from '../../lib/oidc/boundary.ts';
import { timeOrderedId } from '../../lib/ids.ts';
import { ORGANIZATION_TOKEN_TTL_SECONDS, organizationUrn } from '../../lib/organizations/urn.ts';
import type { Actor } from './actor.ts';
import type { ExchangeRegistry } from './registry.ts';

export const grantType = TOKEN_EXCHANGE_GRANT;
export const parameters = new Set([
  'subject_token',
  'subject_token_type',
  'actor_token',
  'actor_token_type',
  'resource',
  'scope',
  'requested_token_type',
  'organization_id',
]);

export interface TokenExchangeDeps {
  /** The application by id (the caller remembers it: it is read on every exchange). */
  applicationOf: (id: string) => Promise<Application | null>;
  impersonation: Impersonation;
  verifyActor: (ctx: KoaContextWithOIDC, token: string) => Promise<Actor>;
  exchanges: ExchangeRegistry;
  /** JWS algorithm of the service's signing key. */
  signingAlg: 'ES256' | 'EdDSA';
}

const invalidRequest = (description: string) => new oidcErrors.InvalidRequest(description);

function single(ctx: KoaContextWithOIDC, name: string): string | undefined {
  const value = (ctx.oidc.params as Record<string, unknown>)[name];
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw invalidRequest(`${name} must be a single value`);
  return value;
}

/** A parameter as sent, for the audit of a refusal (which may be about the parameter itself). */
function raw(ctx: KoaContextWithOIDC, name: string): string | undefined {
  const value = (ctx.oidc.params as Record<string, unknown>)[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function requestedScopes(ctx: KoaContextWithOIDC): string[] {
  return [...new Set((single(ctx, 'scope') ?? '').split(' ').filter(Boolean))];
}

/** The grant's handler: the exchange, and the audit of every refusal with the error it is answered with. */
export function createTokenExchangeHandler(deps: TokenExchangeDeps) {
  return async function tokenExchange(ctx: KoaContextWithOIDC): Promise<void> {
    const progress: Progress = {};
    try {
      await exchange(ctx, deps, progress);
    } catch (error) {
      // A refusal is audited with the answer it gets; a store outage or a bug is no decision about the request.
      if (error instanceof oidcErrors.OIDCProviderError && error.statusCode < 500) {
        await deps.impersonation.recordFailure({
          applicationId: ctx.oidc.client!.clientId,
          subjectToken: raw(ctx, 'subject_token'),
          plan: progress.plan,
          actorUserId: progress.actor?.sub ?? null,
          resource: raw(ctx, 'resource'),
          scope: raw(ctx, 'scope'),
          error: error.error,
          errorDescription: error.error_description,
        });
      }
      throw error;
    }
  };
}

/** What an exchange established before it was refused. */
interface Progress {
  plan?: ExchangePlan;
  actor?: Actor;
}

/**
 * RFC 8693 token exchange for impersonation. The rules run in the documented order: the application's
 * opt-in, the parameters, the subject token, the resource, the actor token, custom claims (during
 * signing), and only then is the subject token spent.
 */
async function exchange(ctx: KoaContextWithOIDC, deps: TokenExchangeDeps, progress: Progress): Promise<void> {
  const client = ctx.oidc.client!;
  const app = await deps.applicationOf(client.clientId);
  if (!app || !tokenExchangeAllowed(app)) {
    throw new oidcErrors.UnauthorizedClient('token exchange is not allowed for this application');
  }

  const subjectToken = single(ctx, 'subject_token');
  if (!subjectToken) throw invalidRequest("missing required parameter 'subject_token'");
  const subjectTokenType = single(ctx, 'subject_token_type');
  if (!subjectTokenType) throw invalidRequest("missing required parameter 'subject_token_type'");
  if (subjectTokenType !== ACCESS_TOKEN_TYPE && subjectTokenType !== IMPERSONATION_TOKEN_TYPE) {
    throw invalidRequest(`unsupported subject_token_type; use ${ACCESS_TOKEN_TYPE}`);
  }
  const actorToken = single(ctx, 'actor_token');
  const actorTokenType = single(ctx, 'actor_token_type');
  if (actorToken && !actorTokenType) throw invalidRequest("missing required parameter 'actor_token_type'");
  if (!actorToken && actorTokenType) throw invalidRequest("actor_token_type given without 'actor_token'");
  if (actorTokenType && actorTokenType !== ACCESS_TOKEN_TYPE) {
    throw invalidRequest(`unsupported actor_token_type; use ${ACCESS_TOKEN_TYPE}`);
  }
  const requestedType = single(ctx, 'requested_token_type');
  if (requestedType && requestedType !== ACCESS_TOKEN_TYPE) {
    throw invalidRequest(`unsupported requested_token_type; only ${ACCESS_TOKEN_TYPE} is issued`);
  }
  const resource = single(ctx, 'resource');
  const organizationId = single(ctx, 'organization_id');

  const plan = await planOrThrow(deps.impersonation, subjectToken, resource, requestedScopes(ctx), organizationId);
  progress.plan = plan;
  const token = newAccessToken(ctx, { accountId: plan.user.id, client, gty: TOKEN_EXCHANGE_GTY });
  if (plan.target) {
    token.resourceServer = new ctx.oidc.provider.ResourceServer(plan.target.indicator, {
      scope: plan.allowed.join(' '),
      audience: plan.target.indicator,
      accessTokenTTL: plan.target.accessTokenTtl,
      accessTokenFormat: 'jwt',
      jwt: { sign: { alg: deps.signingAlg } },
    });
  } else if (plan.organizationId) {
    const audience = organizationUrn(plan.organizationId);
    token.resourceServer = new ctx.oidc.provider.ResourceServer(audience, {
      scope: plan.allowed.join(' '),
      audience,
      accessTokenTTL: ORGANIZATION_TOKEN_TTL_SECONDS,
      accessTokenFormat: 'jwt',
      jwt: { sign: { alg: deps.signingAlg } },
    });
  } else {
    // An opaque token for the userinfo endpoint needs a grant to be honoured there (and revocation ends it with it).
    const grant = new ctx.oidc.provider.Grant({ accountId: plan.user.id, clientId: client.clientId });
    grant.addOIDCScope(plan.granted.join(' '));
    token.grantId = await grant.save();
  }
  token.scope = plan.granted.join(' ');
  // Whatever the resource's TTL: an impersonation is short-lived.
  capLifetime(token, deps.impersonation.maxTokenTtlSeconds);

  const actor = actorToken ? await deps.verifyActor(ctx, actorToken) : undefined;
  progress.actor = actor;
  // Time-ordered: the impersonations' id index then grows at its end instead of a page at a random place per exchange.
  const impersonationId = timeOrderedId();
  deps.exchanges.remember(token, {
    impersonationId,
    subjectTokenContext: plan.record.context,
    actor,
    organizationId: plan.target ? (plan.organizationId ?? undefined) : undefined,
  });

  // Custom claims run inside save(); a denial or fail-closed error throws before the token is spent.
  const value = await token.save();
  // The record's times: when it was issued to the millisecond (lists order by it), and the token's own expiry.
  const expiresAt = ((token.iat ?? Math.floor(Date.now() / 1000)) + token.expiration) * 1000;
  const outcome = await deps.impersonation.complete(plan, {
    impersonationId,
    applicationId: client.clientId,
    actorUserId: actor?.sub ?? null,
    scope: token.scope,
    grantId: token.grantId ?? null,
    issuedAt: Date.now(),
    expiresAt,
  });
  if (typeof outcome === 'string') {
    await token.destroy().catch(() => undefined);
    throw invalidRequest(
      outcome === 'used'
        ? 'subject_token is invalid, expired or already used'
        : "subject_token was revoked: the user's impersonations were revoked",
    );
  }

  // Names the impersonated user to whoever observes the response (the token-issued log line).
  ctx.oidc.entity('AccessToken', token);
  ctx.body = {
    access_token: value,
    issued_token_type: ACCESS_TOKEN_TYPE,
    token_type: 'Bearer',
    expires_in: token.expiration,
    scope: token.scope,
  };
}

async function planOrThrow(
  impersonation: Impersonation,
  subjectToken: string,
  resource: string | undefined,
  requested: string[],
  organizationId: string | undefined,
): Promise<ExchangePlan> {
  try {
    return await impersonation.plan(subjectToken, resource, requested, organizationId);
  } catch (error) {
    if (!(error instanceof ExchangeRefused)) throw error;
    if (error.error === 'invalid_target') throw new oidcErrors.InvalidTarget(error.message);
    if (error.error === 'access_denied') {
      // Logto answers a non-member's organization token request with access_denied and 403.
      const denied = new oidcErrors.AccessDenied(error.message);
      denied.statusCode = 403;
      throw denied;
    }
    throw invalidRequest(error.message);
  }
}
