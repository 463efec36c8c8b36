import type { AdapterPayload } from 'oidc-provider';
import { TOKEN_EXCHANGE_GRANT } from '../impersonation/grant.ts';
import type { Application, CustomClientMetadata } from './repository.ts';
import { isConfidential, type ApplicationType } from './types.ts';

/** The longest refresh-token lifetime an application may set (`refreshTokenTtlInDays`), as Logto allows. */
export const MAX_REFRESH_TOKEN_TTL_DAYS = 730;

/**
 * The `customClientMetadata` settings the provider acts on while it issues tokens. They travel on the OIDC
 * client as extra client metadata under the same names, so the provider's hooks read them without a lookup.
 */
export const CLIENT_SETTINGS = [
  'corsAllowedOrigins',
  'idTokenTtl',
  'refreshTokenTtlInDays',
  'refreshTokenTtl',
  'rotateRefreshToken',
  'alwaysIssueRefreshToken',
] as const satisfies ReadonlyArray<keyof CustomClientMetadata>;

/** Settings that only mean something for applications that sign users in (ID and refresh tokens). */
export const SIGN_IN_SETTINGS = [
  'idTokenTtl',
  'refreshTokenTtlInDays',
  'refreshTokenTtl',
  'rotateRefreshToken',
  'alwaysIssueRefreshToken',
] as const satisfies ReadonlyArray<keyof CustomClientMetadata>;

/** Why a CORS allowed origin is not one: browsers send `scheme://host[:port]`, lower-cased, nothing more. */
export function originProblem(value: string): string | undefined {
  const parsed = URL.parse(value);
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:'))
    return 'must be an http or https origin';
  if (parsed.origin !== value) {
    return `must be an origin (scheme://host[:port], lower-case, default port omitted) without path, query or fragment, e.g. ${parsed.origin}`;
  }
  return undefined;
}

/** Third-party applications can never impersonate, whatever their metadata says. */
export function tokenExchangeAllowed(app: Pick<Application, 'isThirdParty' | 'customClientMetadata'>): boolean {
  return !app.isThirdParty && app.customClientMetadata.allowTokenExchange === true;
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
const FORBIDDEN_NATIVE_SCHEMES = new Set(['javascript:', 'vbscript:', 'data:', 'blob:', 'file:', 'about:']);

/**
 * Why node-oidc-provider would refuse this redirect (or post-logout redirect) URI for an application of
 * this type, mirroring its client schema: one refused URI makes the whole client invalid, every grant included.
 */
export function redirectUriProblem(type: ApplicationType, uri: string): string | undefined {
  const parsed = URL.parse(uri);
  if (!parsed) return 'must be an absolute URI';
  if (parsed.href.includes('#')) return 'must not contain a fragment';
  const { protocol, hostname } = parsed;
  if (type !== 'Native') return protocol === 'http:' || protocol === 'https:' ? undefined : 'must use http or https';
  if (protocol === 'http:') {
    return LOOPBACK_HOSTS.has(hostname)
      ? undefined
      : 'may use http only with a loopback host (localhost, 127.0.0.1, [::1]) in a native app';
  }
  if (protocol === 'https:')
    return LOOPBACK_HOSTS.has(hostname) ? 'must not use https with a loopback host in a native app' : undefined;
  return FORBIDDEN_NATIVE_SCHEMES.has(protocol) ? `must not use the ${protocol.slice(0, -1)} scheme` : undefined;
}

/**
 * The OIDC client an application stands for. Confidential apps authenticate with HTTP Basic or POST; the
 * stored `client_secret` is the secret's digest, compared by the provider's patched `compareClientSecret`.
 */
export function toClientMetadata(app: Application & { secretDigest: string | null }): AdapterPayload {
  const confidential = isConfidential(app.type);
  // URIs stored before they were validated are left out rather than invalidating the whole client.
  const valid = (uris: string[]) => uris.filter((uri) => !redirectUriProblem(app.type, uri));
  const redirectUris = valid(app.oidcClientMetadata.redirectUris);
  // Without a redirect URI an interactive application cannot run the authorization code flow yet.
  const interactive = app.type !== 'MachineToMachine' && redirectUris.length > 0;
  const grantTypes = app.type === 'MachineToMachine' ? ['client_credentials'] : [];
  if (interactive) grantTypes.push('authorization_code', 'refresh_token');
  // Every client may present the token-exchange grant, so that a disabled application gets the precise
  // `unauthorized_client` error of the grant instead of a generic one; the grant checks the flag.
  grantTypes.push(TOKEN_EXCHANGE_GRANT);
  const metadata: AdapterPayload = {
    client_id: app.id,
    client_name: app.name,
    application_type: app.type === 'Native' ? 'native' : 'web',
    grant_types: grantTypes,
    response_types: interactive ? ['code'] : [],
    redirect_uris: interactive ? redirectUris : [],
    post_logout_redirect_uris: interactive ? valid(app.oidcClientMetadata.postLogoutRedirectUris) : [],
    token_endpoint_auth_method: confidential ? 'client_secret_basic' : 'none',
  };
  if (confidential && app.secretDigest) metadata.client_secret = app.secretDigest;
  for (const key of CLIENT_SETTINGS) {
    if (app.customClientMetadata[key] !== undefined) metadata[key] = app.customClientMetadata[key];
  }
  return metadata;
}
