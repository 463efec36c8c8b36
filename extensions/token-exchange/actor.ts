import { errors as oidcErrors, type KoaContextWithOIDC } from 'oidc-provider';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';

export interface Actor {
  /** The acting user's id. */
  sub: string;
  /** The actor token's own `act`, nested beneath this actor (a chain of delegation). */
  act?: Record<string, unknown>;
}

const invalid = (why: string) => new oidcErrors.InvalidRequest(`invalid actor_token: ${why}`);

function fromClaims(claims: { sub?: unknown; client_id?: unknown; scope?: unknown; act?: unknown }): Actor {
  if (typeof claims.scope !== 'string' || !claims.scope.split(' ').includes('openid')) {
    throw invalid('its scope must contain openid');
  }
  if (typeof claims.sub !== 'string' || claims.sub === claims.client_id) throw invalid('it was not issued to a user');
  const actor: Actor = { sub: claims.sub };
  if (claims.act && typeof claims.act === 'object') actor.act = claims.act as Record<string, unknown>;
  return actor;
}

/**
 * Validates an actor token: an unexpired access token issued by this service to a user, with `openid` in
 * its scope. Opaque tokens are looked up in the store; JWT access tokens are verified against our keys.
 */
export function createActorVerifier(options: { issuer: string; publicKeys: JSONWebKeySet }) {
  const keys = createLocalJWKSet(options.publicKeys);
  return async function verifyActor(ctx: KoaContextWithOIDC, token: string): Promise<Actor> {
    if (token.split('.').length === 3) {
      try {
        const { payload } = await jwtVerify(token, keys, { issuer: options.issuer, typ: 'at+jwt' });
        return fromClaims(payload);
      } catch (error) {
        if (error instanceof oidcErrors.InvalidRequest) throw error;
        throw invalid('not a valid access token of this service, or expired');
      }
    }
    const stored = await ctx.oidc.provider.AccessToken.find(token);
    if (!stored || stored.isExpired) throw invalid('not a valid access token of this service, or expired');
    return fromClaims({
      sub: stored.accountId, client_id: stored.clientId, scope: stored.scope,
      act: (stored.extra as Record<string, unknown> | undefined)?.act,
    });
  };
}
