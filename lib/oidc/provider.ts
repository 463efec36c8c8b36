import Provider, {
  errors as oidcErrors,
  type Configuration,
  type ExternalSigningKey,
  type KoaContextWithOIDC,
} from 'oidc-provider';
import type { Logger } from 'pino';
import type { Authorization } from '../roles/authorization.ts';
import type { ApplicationsRepository } from '../applications/repository.ts';
import type { OrganizationScopesRepository } from '../organizations/scopes-repository.ts';
import type { OrganizationRolesRepository } from '../organizations/roles-repository.ts';
import type { OrganizationsRepository } from '../organizations/repository.ts';
import type { MfaRepository } from '../mfa/repository.ts';
import type { ResourcesRepository } from '../resources/repository.ts';
import type { UsersRepository } from '../users/repository.ts';
import { matchesDigest } from '../ids.ts';
import { isDependencyFailure } from '../http/dependency-errors.ts';
import { requestLogger } from '../http/request-id.ts';
import { CLIENT_SETTINGS, toClientMetadata } from '../applications/clients.ts';
import {
  corsAllowed,
  grantTtl,
  idTokenTtl,
  issueRefreshToken,
  refreshTokenTtl,
  rotateRefreshToken,
} from './client-policy.ts';
import { createAdapterFactory } from './adapter.ts';
import type { DocumentStore } from '../ports/documents.ts';
import { OIDC_SCOPES, ORGANIZATIONS_RESOURCE, SCOPE_CLAIMS, accountClaims, organizationClaims } from './claims.ts';
import { LOGTO_MANAGEMENT_INDICATOR, MANAGEMENT_RESOURCE_ID } from '../bootstrap.ts';
import { ORGANIZATION_TOKEN_TTL_SECONDS, organizationUrn } from '../organizations/urn.ts';
import { LOGTO_AUTHORIZATION_PARAMETERS } from './sign-in-parameters.ts';
import { isClientCredentials, registerOrganizationTokens, requestedOrganization } from './organization-tokens.ts';
import { createIntrospectionPolicy } from './introspection.ts';
import { errorPage, logoutSource, postLogoutSuccessSource } from '../http/provider-pages.ts';
import { remembered } from '../data/remembered.ts';

export interface ProviderOptions {
  issuer: string;
  /** The signing keys (lib/oidc/signer.ts). */
  keys: ExternalSigningKey[];
  /** JWS algorithm of access and ID tokens (follows the signing key). */
  signingAlg: 'ES256' | 'EdDSA';
  cookieKeys: string[];
  store: DocumentStore;
  repositories: {
    applications: ApplicationsRepository;
    organizationScopes: OrganizationScopesRepository;
    organizationRoles: OrganizationRolesRepository;
    organizations: OrganizationsRepository;
    resources: ResourcesRepository;
    users: UsersRepository;
    mfaVerifications: MfaRepository;
  };
  authorization: Authorization;
  /** Lifetime of access tokens without a resource (userinfo tokens, bare client credentials), seconds. */
  accessTokenTtl: number;
  /** Absolute URL of the sign-in UI; the interaction uid is appended. */
  interactionUrl: string;
  /**
   * The page of the sign-in UI an interaction opens on: a path after its uid (default: none). The interaction's URL
   * only says that there is one (`?start`): the provider's interaction cookie takes that URL's path as its own, and
   * one of a page below the uid would not reach the interaction's other pages.
   */
  interactionStart?: (prompt: string, params: Record<string, unknown>) => string;
  logger: Logger;
  /** Claims added to every access token (custom JWT claims). */
  extraTokenClaims?: Configuration['extraTokenClaims'];
  /** Final say over a JWT access token's payload (actor claim). */
  customizeJwt?: NonNullable<NonNullable<Configuration['formats']>['customizers']>['jwt'];
  /** Believe `X-Forwarded-*` when the provider serves requests itself (TRUST_PROXY). */
  trustProxy?: boolean;
  /** Runs before a client's secret is compared; throws to refuse the client (too many failed authentications). */
  clientGate?: (clientId: string) => Promise<void>;
  /**
   * Runs once per `/oidc/token` request, for the client it authenticates as, before the secret is compared and the
   * grant runs; throws to refuse the request (per-client token-request limit).
   */
  tokenRequestGate?: (ctx: KoaContextWithOIDC, clientId: string) => Promise<void>;
}

/** Which user an authorization-flow request acts for, when there is one. */
function accountIdOf(ctx: KoaContextWithOIDC): string | undefined {
  const { oidc } = ctx;
  return (
    oidc.account?.accountId ??
    oidc.entities.AuthorizationCode?.accountId ??
    oidc.entities.RefreshToken?.accountId ??
    oidc.session?.accountId
  );
}

export function createProvider(options: ProviderOptions): Provider {
  const { repositories, authorization } = options;
  // A token for a resource lives as long as that resource says; one for the userinfo endpoint, the default.
  const accessTokenTtl = (
    _ctx: unknown,
    token: { resourceServer?: { accessTokenTTL?: number | undefined } | undefined },
  ) => token.resourceServer?.accessTokenTTL ?? options.accessTokenTtl;

  /**
   * The organization template as a resource (Logto's RFC 0001): at authorization, every organization scope may be
   * granted; a refresh token's organization token (`organization_id`) carries those the member's organization roles
   * give in that organization, for the audience `urn:logto:organization:<id>`.
   */
  async function organizationsResourceServer(ctx: KoaContextWithOIDC) {
    const organizationId = requestedOrganization(ctx);
    const accountId = accountIdOf(ctx);
    const jwt = {
      accessTokenFormat: 'jwt' as const,
      jwt: { sign: { alg: options.signingAlg } },
      accessTokenTTL: ORGANIZATION_TOKEN_TTL_SECONDS,
    };
    const clientId = ctx.oidc.client?.clientId;
    if (isClientCredentials(ctx)) {
      // An application gets organization scopes only inside an organization it is a member of.
      if (!organizationId || !clientId)
        throw new oidcErrors.InvalidTarget(`${ORGANIZATIONS_RESOURCE} needs organization_id`);
      const scopes = await authorization.organizationScopesForApplication(organizationId, clientId);
      return { ...jwt, scope: scopes.map((scope) => scope.name).join(' '), audience: organizationUrn(organizationId) };
    }
    if (organizationId && accountId) {
      const scopes = await authorization.organizationScopesForUser(organizationId, accountId);
      return { ...jwt, scope: scopes.map((scope) => scope.name).join(' '), audience: organizationUrn(organizationId) };
    }
    return {
      ...jwt,
      scope: (await repositories.organizationScopes.names()).join(' '),
      audience: ORGANIZATIONS_RESOURCE,
    };
  }

  const configuration: Configuration = {
    adapter: createAdapterFactory(options.store, async (clientId) => {
      const app = await repositories.applications.findForClient(clientId);
      return app ? toClientMetadata(app) : undefined;
    }),
    jwks: { keys: options.keys },
    cookies: { keys: options.cookieKeys },
    scopes: OIDC_SCOPES,
    claims: SCOPE_CLAIMS,
    // As Logto: the ID token carries the claims its scopes grant even beside an access token (Logto's SDKs read the
    // user's profile and organizations from it), rather than leaving them to the userinfo endpoint.
    conformIdTokenClaims: false,
    // Logto's sign-in parameters, kept on the interaction for the sign-in pages (lib/oidc/sign-in-parameters.ts).
    extraParams: LOGTO_AUTHORIZATION_PARAMETERS,
    async findAccount(_ctx, sub) {
      const user = await repositories.users.findById(sub);
      if (!user || user.isSuspended) return undefined;
      return {
        accountId: user.id,
        claims: async (_use, scope) => ({
          ...accountClaims(user),
          ...(await organizationClaims(repositories, user.id, new Set(scope.split(' ')))),
        }),
      };
    },
    // Discovery advertises what is configured here, so only what the service serves is switched on: the
    // authorization code flow (no implicit or hybrid response types), and client secrets sent as such (the
    // stored digest cannot verify a client_secret_jwt, and applications register no keys for private_key_jwt).
    responseTypes: ['code'],
    clientAuthMethods: ['client_secret_basic', 'client_secret_post', 'none'],
    features: {
      devInteractions: { enabled: false },
      // The signing keys sign with WebCrypto themselves (lib/oidc/signer.ts).
      externalSigningSupport: { enabled: true, ack: 'experimental-01' },
      clientCredentials: { enabled: true },
      introspection: { enabled: true, allowedPolicy: createIntrospectionPolicy({ repositories, authorization }) },
      revocation: { enabled: true },
      // Neither is part of the service: the token-exchange grant and the management API do not honour DPoP
      // bindings, and pushed authorization requests are not offered to applications.
      dPoP: { enabled: false },
      pushedAuthorizationRequests: { enabled: false },
      rpInitiatedLogout: { enabled: true, logoutSource, postLogoutSuccessSource },
      resourceIndicators: {
        enabled: true,
        // A request that names no resource gets a token for the default resource, when one is set; an organization
        // token is one for the organizations resource the refresh token was granted.
        async defaultResource(ctx, _client, oneOf) {
          if (oneOf)
            return requestedOrganization(ctx) && oneOf.includes(ORGANIZATIONS_RESOURCE)
              ? ORGANIZATIONS_RESOURCE
              : oneOf;
          // An application's organization token (client credentials with organization_id) is for the organization.
          if (requestedOrganization(ctx)) return ORGANIZATIONS_RESOURCE;
          return (await repositories.resources.findDefault())?.indicator;
        },
        // As Logto: a token request without `resource` gets a token for the userinfo endpoint (when `openid` was
        // granted), not one for the API the authorization named; with `organization_id`, an organization token.
        useGrantedResource: (ctx) => requestedOrganization(ctx) !== undefined,
        async getResourceServerInfo(ctx, indicator, client) {
          if (indicator === ORGANIZATIONS_RESOURCE) return organizationsResourceServer(ctx);
          const resource =
            indicator === LOGTO_MANAGEMENT_INDICATOR
              ? await repositories.resources.findById(MANAGEMENT_RESOURCE_ID)
              : await repositories.resources.findByIndicator(indicator);
          // node-oidc-provider's own description, which Logto answers too.
          if (!resource) throw new oidcErrors.InvalidTarget();
          let scopes: string[] = [];
          const accountId = accountIdOf(ctx);
          const organizationId = requestedOrganization(ctx);
          if (isClientCredentials(ctx)) {
            scopes = organizationId
              ? await authorization.scopesForOrganizationApplication(organizationId, client.clientId, resource.id)
              : await authorization.scopesForApplication(client.clientId, resource.id);
          } else if (accountId && organizationId) {
            scopes = await authorization.scopesForOrganizationUser(organizationId, accountId, resource.id);
          } else if (accountId) {
            scopes = await authorization.scopesForUser(accountId, resource.id);
          }
          return {
            scope: scopes.join(' '),
            audience: indicator,
            accessTokenTTL: resource.accessTokenTtl,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: options.signingAlg } },
          };
        },
      },
    },
    pkce: { required: () => true },
    // Per-application settings (customClientMetadata) ride on the client; the hooks below read them.
    extraClientMetadata: { properties: CLIENT_SETTINGS },
    clientBasedCORS: corsAllowed,
    issueRefreshToken: (_ctx, client, source) => issueRefreshToken(client, source.scopes),
    rotateRefreshToken,
    ttl: {
      AccessToken: accessTokenTtl,
      ClientCredentials: accessTokenTtl,
      AuthorizationCode: 60,
      IdToken: (_ctx, _token, client) => idTokenTtl(client),
      Interaction: 3600,
      Session: 14 * 24 * 3600,
      Grant: grantTtl,
      RefreshToken: refreshTokenTtl,
    },
    clientDefaults: {
      id_token_signed_response_alg: options.signingAlg,
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
    },
    enabledJWA: {
      idTokenSigningAlgValues: ['ES256', 'EdDSA'],
      userinfoSigningAlgValues: ['ES256', 'EdDSA'],
    },
    interactions: {
      url: (_ctx, interaction) =>
        `${options.interactionUrl}/${interaction.uid}${
          options.interactionStart?.(interaction.prompt.name, interaction.params) ? '?start' : ''
        }`,
    },
    // First-party applications are trusted: their requested scopes are granted without a consent screen.
    async loadExistingGrant(ctx) {
      const { oidc } = ctx;
      const grantId = oidc.result?.consent?.grantId ?? oidc.session?.grantIdFor(oidc.client!.clientId);
      if (grantId) return oidc.provider.Grant.find(grantId);
      const app = await repositories.applications.findById(oidc.client!.clientId);
      if (!app || app.isThirdParty || !oidc.session?.accountId) return undefined;
      const grant = new oidc.provider.Grant({ clientId: oidc.client!.clientId, accountId: oidc.session.accountId });
      const requested = oidc.requestParamScopes;
      grant.addOIDCScope([...requested].filter((scope) => OIDC_SCOPES.includes(scope)).join(' '));
      for (const [indicator, resourceServer] of Object.entries(oidc.resourceServers ?? {})) {
        grant.addResourceScope(indicator, resourceServer.scope);
      }
      await grant.save();
      return grant;
    },
    extraTokenClaims: options.extraTokenClaims,
    formats: {
      customizers: {
        async jwt(ctx, token, jwt) {
          await options.customizeJwt?.(ctx, token, jwt);
          // An API token issued within an organization names it, as Logto's do.
          const organizationId = requestedOrganization(ctx);
          if (
            organizationId &&
            (token.kind === 'AccessToken' || token.kind === 'ClientCredentials') &&
            jwt.payload.aud !== organizationUrn(organizationId)
          ) {
            jwt.payload.organization_id = organizationId;
          }
        },
      },
    },
    renderError(ctx, out) {
      ctx.type = 'html';
      ctx.body = errorPage(out);
    },
  };

  const provider = new Provider(options.issuer, configuration);
  registerOrganizationTokens(provider, repositories);
  provider.proxy = options.trustProxy ?? false;
  // Client secrets are stored as digests; compare the presented secret's digest in constant time.
  const { clientGate } = options;
  provider.Client.prototype.compareClientSecret = async function compare(
    this: { clientId: string; clientSecret?: string },
    actual: string,
  ) {
    await clientGate?.(this.clientId);
    return typeof this.clientSecret === 'string' && matchesDigest(actual, this.clientSecret);
  };
  // The provider looks a client up in every request, and hashes its metadata to find its cached instance: the instance
  // itself is remembered until an application changes (a new secret, new settings, a deletion).
  const lookUp = provider.Client.find.bind(provider.Client);
  const remember = remembered(options.store, ['applications'], lookUp, { frozen: false });
  const find = (id: string) => (typeof id === 'string' ? remember(id) : lookUp(id));
  provider.Client.find = find;
  const { tokenRequestGate } = options;
  if (tokenRequestGate) {
    // Client authentication looks the client up after the provider parsed the body (client_secret_post and public
    // clients name themselves there) and before the grant handler, so a refusal here mints nothing; a middleware
    // around the provider would only see the client once the token was issued.
    provider.Client.find = async (id: string) => {
      const client = await find(id);
      const ctx = Provider.ctx;
      // Only the endpoint's own client lookup counts; any later one in the same request is not another request.
      if (client && ctx?.oidc.route === 'token' && !ctx.oidc.client) await tokenRequestGate(ctx, client.clientId);
      return client;
    };
  }
  provider.on('server_error', (ctx, error) => {
    const logger = requestLogger(ctx, options.logger);
    if (!isDependencyFailure(error)) {
      logger.error({ err: error, path: ctx.path }, 'oidc server error');
      return;
    }
    // A store outage is not the client's fault nor a bug: say so, and invite a retry.
    logger.warn({ err: error, path: ctx.path }, 'a backing store is unavailable');
    ctx.status = 503;
    if (typeof ctx.body === 'object') {
      ctx.body = {
        error: 'temporarily_unavailable',
        error_description: 'a backing store is unavailable; try again later',
      };
    }
  });
  return provider;
}
