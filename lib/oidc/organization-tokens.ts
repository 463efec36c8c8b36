import type Provider from 'oidc-provider';
import { errors as oidcErrors, type KoaContextWithOIDC } from 'oidc-provider';
import type { ApplicationsRepository } from '../applications/repository.ts';
import type { MfaRepository } from '../mfa/repository.ts';
import type { OrganizationsRepository } from '../organizations/repository.ts';
import { organizationTokenRefusal } from '../organizations/token-access.ts';
import { providerClientCredentialsGrant, providerRefreshTokenGrant, registerGrantType } from './boundary.ts';
import { ORGANIZATIONS_RESOURCE, ORGANIZATIONS_SCOPE } from './claims.ts';

type Deps = {
  organizations: OrganizationsRepository;
  mfaVerifications: MfaRepository;
  applications: ApplicationsRepository;
};

const accessDenied = (description: string) => {
  // Logto answers these with access_denied and 403.
  const error = new oidcErrors.AccessDenied(description);
  error.statusCode = 403;
  return error;
};

const ORGANIZATION_GRANTS: ReadonlySet<unknown> = new Set(['refresh_token', 'client_credentials']);

/** The organization a refresh-token or client-credentials request names (`organization_id`), or undefined. */
export function requestedOrganization(ctx: KoaContextWithOIDC): string | undefined {
  const params = ctx.oidc.params as Record<string, unknown> | undefined;
  const value = params?.organization_id;
  return ctx.oidc.route === 'token' &&
    ORGANIZATION_GRANTS.has(params?.grant_type) &&
    typeof value === 'string' &&
    value !== ''
    ? value
    : undefined;
}

/** Whether the token request is the client-credentials grant (an application acting for itself). */
export function isClientCredentials(ctx: KoaContextWithOIDC): boolean {
  return ctx.oidc.params?.grant_type === 'client_credentials';
}

/**
 * Logto's organization tokens on the refresh-token grant (its RFC 0001): `organization_id` without `resource` gets a
 * token for `urn:logto:organization:<id>` with the organization scopes the member's roles give there, and with
 * `resource`, that API's token within the organization; the provider's own grant issues them (lib/oidc/provider.ts
 * says which resource server and scopes), after the checks Logto makes, before the refresh token is spent or rotated:
 * the user is a member (with a second factor when the organization requires MFA), the application is first-party,
 * and the refresh token was granted `urn:logto:scope:organizations` (and, for an organization token, the
 * organizations resource).
 */
export function registerOrganizationTokens(provider: Provider, deps: Deps): void {
  const own = providerRefreshTokenGrant(provider);

  async function check(ctx: KoaContextWithOIDC, organizationId: string): Promise<void> {
    const value = ctx.oidc.params?.refresh_token;
    const refreshToken =
      typeof value === 'string' ? await provider.RefreshToken.find(value, { ignoreExpiration: true }) : undefined;
    // A refresh token the grant refuses anyway is refused by it, with its own error.
    const clientId = ctx.oidc.client?.clientId;
    const accountId = refreshToken?.accountId;
    if (
      !refreshToken ||
      !accountId ||
      !clientId ||
      refreshToken.clientId !== clientId ||
      refreshToken.isExpired ||
      refreshToken.consumed
    )
      return;
    const refusal = await organizationTokenRefusal(deps, organizationId, accountId);
    if (refusal) throw accessDenied(refusal);
    // Logto lets a third-party application into the organizations its user picked on the consent page, which this
    // service's consent page does not offer: none.
    if ((await deps.applications.findById(clientId))?.isThirdParty) {
      throw accessDenied('organization access is not granted to the application');
    }
    if (!refreshToken.scopes.has(ORGANIZATIONS_SCOPE)) {
      throw new oidcErrors.InsufficientScope('refresh token missing required scope', ORGANIZATIONS_SCOPE);
    }
    const resources = [refreshToken.resource ?? []].flat();
    if (!ctx.oidc.params?.resource && !resources.includes(ORGANIZATIONS_RESOURCE)) {
      throw new oidcErrors.InvalidTarget(`the refresh token was not granted ${ORGANIZATIONS_RESOURCE}`);
    }
  }

  registerGrantType(
    provider,
    'refresh_token',
    async (ctx) => {
      const organizationId = requestedOrganization(ctx);
      if (organizationId) await check(ctx, organizationId);
      await own.handler(ctx);
    },
    new Set([...own.parameters, 'resource', 'organization_id']),
    new Set(['resource']),
  );

  // Logto's organization tokens for machine-to-machine applications: only a member application gets one.
  const machine = providerClientCredentialsGrant(provider);
  registerGrantType(
    provider,
    'client_credentials',
    async (ctx) => {
      const organizationId = requestedOrganization(ctx);
      const clientId = ctx.oidc.client?.clientId;
      if (organizationId && !(clientId && (await deps.organizations.applications.has({ organizationId }, clientId)))) {
        throw accessDenied('app has not associated with the organization');
      }
      await machine.handler(ctx);
    },
    new Set([...machine.parameters, 'resource', 'organization_id']),
  );
}
