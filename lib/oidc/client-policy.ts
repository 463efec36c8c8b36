import type { Client, KoaContextWithOIDC, RefreshToken } from 'oidc-provider';
import { MAX_REFRESH_TOKEN_TTL_DAYS } from '../applications/clients.ts';

const DAY = 24 * 3600;
/** ID token lifetime of an application without `idTokenTtl`, seconds. */
export const DEFAULT_ID_TOKEN_TTL = 3600;
/** Refresh token lifetime of an application without `refreshTokenTtlInDays`, days. */
export const DEFAULT_REFRESH_TOKEN_TTL_DAYS = 14;
/** How long a grant (the record of what a user consented to) lives when no refresh token needs it longer. */
export const GRANT_TTL = 14 * DAY;
/** Past this age of the sign-in, refresh tokens are no longer renewed: the chain ends when the last one expires. */
const ROTATION_HORIZON = 365 * DAY;
/** Share of a confidential client's refresh token lifetime after which using it yields a new one, percent. */
const CONFIDENTIAL_ROTATION_AFTER = 70;

/**
 * The per-application token settings (`customClientMetadata`) as the provider's client carries them
 * (see `CLIENT_SETTINGS`): values of the wrong type read as unset.
 */
function settingsOf(client: Client) {
  const metadata = client.metadata();
  const number = (value: unknown) =>
    typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;
  const origins = metadata.corsAllowedOrigins;
  return {
    corsAllowedOrigins: Array.isArray(origins) ? origins.filter((origin) => typeof origin === 'string') : [],
    idTokenTtl: number(metadata.idTokenTtl),
    refreshTokenTtlInDays: number(metadata.refreshTokenTtlInDays),
    refreshTokenTtl: number(metadata.refreshTokenTtl),
    rotateRefreshToken: typeof metadata.rotateRefreshToken === 'boolean' ? metadata.rotateRefreshToken : undefined,
    alwaysIssueRefreshToken: metadata.alwaysIssueRefreshToken === true,
  };
}

const isPublic = (client: Client) => client.clientAuthMethod === 'none';

/**
 * Whether a browser page at `origin` may read the answers of the token, userinfo, revocation and
 * introspection endpoints for this client: an origin the application lists in `corsAllowedOrigins`, or,
 * as the provider does by default, the origin of one of its redirect URIs for a public client (and for
 * any client on the userinfo endpoint).
 */
export function corsAllowed(ctx: KoaContextWithOIDC, origin: string, client: Client): boolean {
  if (settingsOf(client).corsAllowedOrigins.includes(origin)) return true;
  if (origin === 'null') return false;
  if (ctx.oidc.route !== 'userinfo' && !isPublic(client)) return false;
  return (client.redirectUris ?? []).some((uri) => URL.parse(uri)?.origin === origin);
}

export function idTokenTtl(client: Client): number {
  return settingsOf(client).idTokenTtl ?? DEFAULT_ID_TOKEN_TTL;
}

/** `refreshTokenTtlInDays`, else Logto's `refreshTokenTtl` (seconds), else 14 days. */
function refreshTokenLifetime(client: Client): number {
  const { refreshTokenTtlInDays, refreshTokenTtl } = settingsOf(client);
  if (refreshTokenTtlInDays !== undefined) return refreshTokenTtlInDays * DAY;
  return refreshTokenTtl ?? DEFAULT_REFRESH_TOKEN_TTL_DAYS * DAY;
}

/**
 * A refresh token lives `refreshTokenTtlInDays` (or `refreshTokenTtl` seconds). A public browser client's rotated token keeps the expiry
 * of the one it replaces, so rotation cannot stretch a stolen token's life: for a SPA the setting bounds
 * the whole chain.
 */
export function refreshTokenTtl(ctx: KoaContextWithOIDC | undefined, token: RefreshToken, client: Client): number {
  const rotated = ctx?.oidc?.entities.RotatedRefreshToken;
  if (rotated && client.applicationType === 'web' && isPublic(client) && !token.isSenderConstrained()) {
    return rotated.remainingTTL;
  }
  return refreshTokenLifetime(client);
}

/**
 * A grant must outlive every refresh token issued under it, or the refresh token stops working early. The
 * consent page saves grants outside the provider's request, where the client is not at hand: those get the
 * longest lifetime any application may set.
 */
export function grantTtl(ctx: KoaContextWithOIDC | undefined): number {
  const client = ctx?.oidc?.client;
  return Math.max(GRANT_TTL, client ? refreshTokenLifetime(client) : MAX_REFRESH_TOKEN_TTL_DAYS * DAY);
}

/**
 * `rotateRefreshToken: false` keeps a confidential client's refresh token until it expires. Otherwise, and
 * always for a public client (the management API refuses `false` for them; one stored before is ignored),
 * a public client's token is replaced on every use, unless bound to a key, and a confidential client's once
 * 70% of its lifetime has passed; no token is renewed a year after the first one of the sign-in.
 */
export function rotateRefreshToken(ctx: KoaContextWithOIDC): boolean {
  const { RefreshToken: token, Client: client } = ctx.oidc.entities;
  if (!token || !client) return false;
  if (settingsOf(client).rotateRefreshToken === false && !isPublic(client)) return false;
  if (token.totalLifetime() >= ROTATION_HORIZON) return false;
  if (isPublic(client) && !token.isSenderConstrained()) return true;
  return token.ttlPercentagePassed() >= CONFIDENTIAL_ROTATION_AFTER;
}

/**
 * A refresh token comes with the `offline_access` scope, or, with `alwaysIssueRefreshToken`, with every
 * authorization; never to a client without the refresh-token grant.
 */
export function issueRefreshToken(client: Client, scopes: ReadonlySet<string>): boolean {
  if (!client.grantTypeAllowed('refresh_token')) return false;
  return scopes.has('offline_access') || settingsOf(client).alwaysIssueRefreshToken;
}
