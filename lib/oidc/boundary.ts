import type Provider from 'oidc-provider';
import type { Configuration, KoaContextWithOIDC } from 'oidc-provider';
import type { Middleware } from 'koa';
import compose from 'koa-compose';
import {
  handler as refreshTokenHandler,
  parameters as refreshTokenParameters,
} from 'oidc-provider/lib/actions/grants/refresh_token.js';
import {
  handler as clientCredentialsHandler,
  parameters as clientCredentialsParameters,
} from 'oidc-provider/lib/actions/grants/client_credentials.js';
import * as grantHelpers from 'oidc-provider/lib/helpers/grants.js';

/**
 * Where our types meet node-oidc-provider's and Koa's declarations that are narrower than what those libraries accept
 * at run time: every cast against those declarations lives here, each with its reason. Elsewhere, assertions only
 * type values the code itself produced (parsed records it stored, a generic event name tied to its payload).
 */

/** The declared `extraTokenClaims` signature names token classes the provider does not export; ours reads a subset. */
export function extraTokenClaimsHook<T>(
  hook: (ctx: KoaContextWithOIDC, token: T) => Promise<Record<string, unknown> | undefined>,
): Configuration['extraTokenClaims'] {
  return hook as never;
}

/** `registerGrantType`'s handler type is a Koa middleware with `next`; a grant handler never calls it. */
export function registerGrantType(
  provider: Provider,
  grantType: string,
  handler: (ctx: KoaContextWithOIDC) => Promise<void>,
  parameters: Set<string>,
  dupes?: Set<string>,
): void {
  provider.registerGrantType(grantType, handler as never, parameters, dupes as never);
}

/**
 * The provider's own `refresh_token` grant, bound as the provider binds it (to itself and its grant helpers), so
 * that a grant registered in its place can run it: the package exports neither.
 */
export function providerRefreshTokenGrant(provider: Provider): {
  handler: (ctx: KoaContextWithOIDC) => Promise<void>;
  parameters: ReadonlySet<string>;
} {
  return {
    handler: (ctx) => refreshTokenHandler(provider, boundHelpers(provider), ctx),
    parameters: refreshTokenParameters,
  };
}

/** The provider's own `client_credentials` grant, bound the same way. */
export function providerClientCredentialsGrant(provider: Provider): {
  handler: (ctx: KoaContextWithOIDC) => Promise<void>;
  parameters: ReadonlySet<string>;
} {
  return {
    handler: (ctx) => clientCredentialsHandler(provider, boundHelpers(provider), ctx),
    parameters: clientCredentialsParameters,
  };
}

function boundHelpers(provider: Provider): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(grantHelpers).map(([name, helper]) => [name, helper.bind(undefined, provider)]),
  );
}

/** The AccessToken constructor's declared fields omit `gty`, which the provider stores and reads back. */
export function newAccessToken(
  ctx: KoaContextWithOIDC,
  fields: { accountId: string; client: NonNullable<KoaContextWithOIDC['oidc']['client']>; gty: string },
): InstanceType<Provider['AccessToken']> {
  return new ctx.oidc.provider.AccessToken(fields as never);
}

/**
 * Caps a token's lifetime. The provider reads `expiresIn` (set through the constructor, or worked out once from the
 * TTL policy by `expiration`); the declarations name it only as a constructor option.
 */
export function capLifetime(token: InstanceType<Provider['AccessToken']>, maxSeconds: number): void {
  (token as unknown as { expiresIn: number }).expiresIn = Math.min(token.expiration, maxSeconds);
}

/**
 * koa-compose is declared over Koa's base context, the routers' middleware over their own context type: the same
 * object at run time.
 */
export function composeMiddleware(stack: ReadonlyArray<Middleware<never, never>>): Middleware {
  const composed = compose([...stack] as never);
  return (ctx, next) => composed(ctx as never, next);
}

/** The provider is a Koa application (its `middleware` is Koa's public stack); its declarations do not say so. */
export function providerMiddleware(provider: Provider): Middleware {
  return compose((provider as unknown as { middleware: Middleware[] }).middleware);
}
