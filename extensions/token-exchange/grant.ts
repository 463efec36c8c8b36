import { errors as oidcErrors, type KoaContextWithOIDC } from 'oidc-provider';
import type { Repositories } from '../../lib/repositories.ts';
import type { Authorization } from '../../lib/roles/authorization.ts';
import type { SubjectTokens } from '../../lib/impersonation/subject-tokens.ts';
import type { ImpersonationAudit } from '../../lib/impersonation/audit.ts';
import { OIDC_SCOPES } from '../../lib/oidc/claims.ts';
import { TOKEN_EXCHANGE_GRANT, tokenExchangeAllowed } from '../../lib/applications/clients.ts';
import { MANAGEMENT_RESOURCE_ID } from '../../lib/bootstrap.ts';
import type { Actor } from './actor.ts';
import type { ExchangeRegistry } from './registry.ts';

export const grantType = TOKEN_EXCHANGE_GRANT;
export const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
export const parameters = new Set([
  'subject_token', 'subject_token_type', 'actor_token', 'actor_token_type', 'resource', 'scope', 'requested_token_type',
]);

/** OIDC scopes an exchanged token may carry: never `offline_access`, since no refresh token is issued. */
const EXCHANGEABLE_OIDC_SCOPES = new Set(OIDC_SCOPES.filter((scope) => scope !== 'offline_access'));

export interface TokenExchangeDeps {
  repositories: Repositories;
  authorization: Authorization;
  subjectTokens: SubjectTokens;
  audit: ImpersonationAudit;
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

function requestedScopes(ctx: KoaContextWithOIDC): string[] {
  return [...new Set((single(ctx, 'scope') ?? '').split(' ').filter(Boolean))];
}

/**
 * RFC 8693 token exchange for impersonation. The rules run in the documented order: the application's
 * opt-in, the parameters, the subject token, the resource, the actor token, custom claims (during
 * signing), and only then is the subject token spent.
 */
export function createTokenExchangeHandler(deps: TokenExchangeDeps) {
  return async function tokenExchange(ctx: KoaContextWithOIDC): Promise<void> {
    const client = ctx.oidc.client!;
    const app = await deps.repositories.applications.findById(client.clientId);
    if (!app || !tokenExchangeAllowed(app)) {
      throw new oidcErrors.UnauthorizedClient('token exchange is not allowed for this application');
    }

    const subjectToken = single(ctx, 'subject_token');
    if (!subjectToken) throw invalidRequest("missing required parameter 'subject_token'");
    const subjectTokenType = single(ctx, 'subject_token_type');
    if (!subjectTokenType) throw invalidRequest("missing required parameter 'subject_token_type'");
    if (subjectTokenType !== ACCESS_TOKEN_TYPE) {
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

    const record = await deps.subjectTokens.peek(subjectToken);
    if (!record) throw invalidRequest('subject_token is invalid, expired or already used');
    const user = await deps.repositories.users.findById(record.userId);
    if (!user) throw invalidRequest("the subject token's user no longer exists");
    if (user.isSuspended) throw invalidRequest("the subject token's user is suspended");

    const requested = requestedScopes(ctx);
    const token = new ctx.oidc.provider.AccessToken({ accountId: user.id, client, gty: 'token_exchange' } as never);
    let granted: string[];
    if (resource) {
      const target = await deps.repositories.resources.findByIndicator(resource);
      if (!target) throw new oidcErrors.InvalidTarget(`resource indicator ${resource} is not registered`);
      // Impersonating a console admin must never yield a management token, whatever roles the user holds.
      if (target.id === MANAGEMENT_RESOURCE_ID) {
        throw new oidcErrors.InvalidTarget('the management API cannot be a token-exchange target');
      }
      const allowed = new Set(await deps.authorization.scopesForUser(user.id, target.id));
      granted = requested.filter((scope) => allowed.has(scope));
      token.resourceServer = new ctx.oidc.provider.ResourceServer(target.indicator, {
        scope: [...allowed].join(' '), audience: target.indicator, accessTokenTTL: target.accessTokenTtl,
        accessTokenFormat: 'jwt', jwt: { sign: { alg: deps.signingAlg } },
      });
    } else {
      granted = requested.filter((scope) => EXCHANGEABLE_OIDC_SCOPES.has(scope));
      // An opaque token for the userinfo endpoint needs a grant to be honoured there.
      const grant = new ctx.oidc.provider.Grant({ accountId: user.id, clientId: client.clientId });
      grant.addOIDCScope(granted.join(' '));
      token.grantId = await grant.save();
    }
    token.scope = granted.join(' ');

    const actor = actorToken ? await deps.verifyActor(ctx, actorToken) : undefined;
    deps.exchanges.remember(token, { subjectTokenContext: record.context, actor });

    // Custom claims run inside save(); a denial or fail-closed error throws before the token is spent.
    const value = await token.save();
    const spent = await deps.subjectTokens.consume(subjectToken);
    if (!spent) {
      await token.destroy().catch(() => undefined);
      throw invalidRequest('subject_token is invalid, expired or already used');
    }
    await deps.audit.record({
      type: 'TokenExchange.Succeeded', subjectTokenRef: record.ref, userId: user.id, createdBy: record.createdBy,
      applicationId: client.clientId, actorUserId: actor?.sub ?? null, resource: resource ?? null, scope: token.scope,
    });

    ctx.body = {
      access_token: value,
      issued_token_type: ACCESS_TOKEN_TYPE,
      token_type: 'Bearer',
      expires_in: token.expiration,
      scope: token.scope,
    };
  };
}
