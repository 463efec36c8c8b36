import { errors as oidcErrors, type KoaContextWithOIDC } from 'oidc-provider';
import type { ClaimsCustomizer, CustomizerContext, CustomizerToken } from '../../lib/jwt-customizer/claims.ts';
import type { Organizations } from '../../lib/organizations/index.ts';
import type { Users } from '../../lib/users/index.ts';
import { actClaim, type ExchangeRegistry } from '../token-exchange/registry.ts';
import type { Application } from '../../lib/applications/repository.ts';
import { IMPERSONATION_CLAIM } from '../../lib/impersonation/record.ts';

interface TokenLike {
  jti?: string;
  kind?: string;
  accountId?: string;
  clientId?: string;
  scope?: string;
  gty?: string;
  aud?: string | string[];
  grantId?: string;
  resourceServer?: { audience?: string };
}

/**
 * The provider's `extraTokenClaims` hook: custom claims for every access token (all grants) and the actor
 * and impersonation claims of exchanged tokens, added after the customizer so no script can forge them.
 */
export function createExtraTokenClaims(deps: {
  customizer: ClaimsCustomizer;
  exchanges: ExchangeRegistry;
  users: Pick<Users, 'findById' | 'heldRoles'>;
  organizations: Pick<Organizations, 'organizationsOfUser'>;
  /** The script's `context.application` by id (the caller remembers it: it is read for every token customized). */
  applicationOf: (id: string) => Promise<Application | null>;
}) {
  async function userContext(userId: string) {
    const user = await deps.users.findById(userId);
    if (!user) return undefined;
    const roles = await deps.users.heldRoles(userId);
    const organizations = await deps.organizations.organizationsOfUser(userId);
    return {
      ...user,
      roles: roles.map(({ id, name, description }) => ({ id, name, description })),
      organizations: organizations.map(({ id, name, organizationRoles }) => ({ id, name, organizationRoles })),
    };
  }

  return async function extraTokenClaims(
    ctx: KoaContextWithOIDC,
    token: TokenLike,
  ): Promise<Record<string, unknown> | undefined> {
    const exchange = deps.exchanges.lookup(token);
    const extra: Record<string, unknown> = {};
    if (await deps.customizer.appliesTo(token.resourceServer?.audience ?? token.aud)) {
      const grantType = String(ctx.oidc.params?.grant_type ?? 'authorization_code');
      const application = token.clientId ? await deps.applicationOf(token.clientId) : null;
      const context: CustomizerContext = {
        grant: exchange ? { type: grantType, subjectTokenContext: exchange.subjectTokenContext } : { type: grantType },
        application,
      };
      if (token.accountId) context.user = await userContext(token.accountId);
      const tokenInput: CustomizerToken = {
        jti: token.jti,
        kind: token.kind,
        accountId: token.accountId,
        clientId: token.clientId,
        scope: token.scope,
        gty: token.gty,
        aud: token.resourceServer?.audience ?? token.aud,
        grantId: token.grantId,
      };
      const result = await deps.customizer.run(tokenInput, context);
      if (result.kind === 'denied') throw new oidcErrors.AccessDenied(result.message);
      if (result.kind === 'failed' && result.blockIssuance) {
        throw new oidcErrors.InvalidRequest('the token customizer failed and issuance is blocked on error');
      }
      if (result.kind === 'claims') Object.assign(extra, result.claims);
    }
    if (exchange?.actor) extra.act = actClaim(exchange.actor);
    if (exchange) extra[IMPERSONATION_CLAIM] = exchange.impersonationId;
    return Object.keys(extra).length ? extra : undefined;
  };
}
