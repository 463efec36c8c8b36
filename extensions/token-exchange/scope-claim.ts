import type { AccessToken, ClientCredentials, JWTStructured, KoaContextWithOIDC } from 'oidc-provider';
import { TOKEN_EXCHANGE_GTY } from '../../lib/impersonation/grant.ts';
import type { ExchangeRegistry } from './registry.ts';

/**
 * The provider's JWT customizer for exchanged tokens. The provider leaves out an empty `scope`, but an
 * exchanged token always says which scopes it was granted, an empty string when the user's roles grant none
 * of those requested (SPEC §4.2), so that a resource server reads "nothing" rather than a missing claim. An
 * API token issued within an organization names it in `organization_id`, as Logto's do.
 */
export function createExchangedJwtCustomizer(exchanges: ExchangeRegistry) {
  return function customizeExchangedJwt(
    _ctx: KoaContextWithOIDC,
    token: AccessToken | ClientCredentials,
    jwt: JWTStructured,
  ): void {
    if (token.kind !== 'AccessToken' || token.gty !== TOKEN_EXCHANGE_GTY) return;
    jwt.payload.scope = token.scope ?? '';
    const organizationId = exchanges.lookup(token)?.organizationId;
    if (organizationId) jwt.payload.organization_id = organizationId;
  };
}
