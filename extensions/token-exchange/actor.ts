import { errors as oidcErrors, type KoaContextWithOIDC } from 'oidc-provider';
import { TOKEN_EXCHANGE_GTY } from '../../lib/impersonation/grant.ts';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet, type JWTPayload } from 'jose';

export interface Actor {
  /** The acting user's id. */
  sub: string;
}

export interface ActorUsers {
  findById(id: string): Promise<{ isSuspended: boolean } | null>;
}

const invalid = (why: string) => new oidcErrors.InvalidRequest(`invalid actor_token: ${why}`);
const NOT_OURS = 'not a valid access token of this service, or expired';

/**
 * Validates an actor token: an unexpired access token issued by this service to a user who still exists
 * and is not suspended, with the OIDC `openid` scope. Only opaque tokens (issued without `resource`, for
 * the userinfo endpoint) can carry that scope: a JWT access token is issued for an API and its scopes are
 * that API's, so an `openid` there is an API scope, whatever its name says. A token issued by token exchange
 * (an impersonation token) never acts: impersonation does not chain.
 */
export function createActorVerifier(options: { issuer: string; publicKeys: JSONWebKeySet; users: ActorUsers }) {
  const keys = createLocalJWKSet(options.publicKeys);

  async function assertActingUser(sub: unknown, clientId: unknown): Promise<string> {
    if (typeof sub !== 'string' || sub === clientId) throw invalid('it was not issued to a user');
    const user = await options.users.findById(sub);
    if (!user) throw invalid('its user no longer exists');
    if (user.isSuspended) throw invalid('its user is suspended');
    return sub;
  }

  async function verifyJwt(token: string): Promise<JWTPayload> {
    try {
      return (await jwtVerify(token, keys, { issuer: options.issuer, typ: 'at+jwt' })).payload;
    } catch {
      throw invalid(NOT_OURS);
    }
  }

  return async function verifyActor(ctx: KoaContextWithOIDC, token: string): Promise<Actor> {
    if (token.split('.').length === 3) {
      const payload = await verifyJwt(token);
      await assertActingUser(payload.sub, payload.client_id);
      throw invalid('its scope must contain openid, which only an access token issued without a resource carries');
    }
    const stored = await ctx.oidc.provider.AccessToken.find(token);
    if (!stored || stored.isExpired) throw invalid(NOT_OURS);
    // No chained impersonation: whoever acts does so as themselves, never as someone they impersonate.
    if (stored.gty === TOKEN_EXCHANGE_GTY) throw invalid('an impersonation token cannot act for another user');
    const sub = await assertActingUser(stored.accountId, stored.clientId);
    if (!(stored.scope ?? '').split(' ').includes('openid')) throw invalid('its scope must contain openid');
    return { sub };
  };
}
