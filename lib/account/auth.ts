import type { Context, Middleware } from 'koa';
import type Provider from 'oidc-provider';
import { errors } from '../errors.ts';
import type { UsersRepository } from '../users/repository.ts';
import { IMPERSONATION_CLAIM } from '../impersonation/record.ts';
import { TOKEN_EXCHANGE_GTY } from '../impersonation/grant.ts';

/** The user an Account API request acts for, from their own access token. */
export interface AccountPrincipal {
  userId: string;
  /** The application the token was issued to. */
  clientId: string;
  /** The grant the token was issued under: the device and application the request comes from. */
  grantId: string;
  /** The browser session the token was issued in; none for a token issued outside one (token exchange). */
  sessionUid: string | undefined;
  /** The token's OIDC scopes: they decide which fields the user may read and change (`profile`, `email`, …). */
  scopes: ReadonlySet<string>;
  /**
   * Issued by token exchange (impersonation): such a token may read the account but change nothing, least
   * privilege for whoever impersonates.
   */
  impersonated: boolean;
}

/** Also the refusal for a token a user can no longer act with (revoked, user gone or suspended): nothing is told apart. */
const invalidToken = () => errors.unauthorized('the bearer token is not a valid access token of a signed-in user');

/**
 * End-user authentication of the Account API, as Logto does it: the bearer token is the opaque access token an
 * application received from the authorization-code flow without a resource (the token the userinfo endpoint
 * takes), with the `openid` scope. It is checked the way the userinfo endpoint checks it: stored and unexpired, no
 * audience (a JWT for an API resource is not it, nor a management token), its grant still standing for the same
 * client and user, the client still registered, the user existing and not suspended, and an impersonation token's
 * impersonation still active (not revoked). Everything else is 401 `auth.unauthorized`; a missing scope is 403
 * `auth.forbidden`.
 */
export function createAccountAuth(deps: {
  provider: Provider;
  users: Pick<UsersRepository, 'findById'>;
  /** Whether an impersonation's tokens may still be honoured. */
  impersonationActive: (id: string) => Promise<boolean>;
}) {
  const { provider } = deps;

  async function principalOf(value: string): Promise<AccountPrincipal> {
    const token = await provider.AccessToken.find(value);
    if (!token?.accountId || token.aud !== undefined || token.isSenderConstrained()) throw invalidToken();
    if (!token.scopes.has('openid')) throw errors.forbidden('openid');
    const grant = token.grantId ? await provider.Grant.find(token.grantId) : undefined;
    if (!grant || grant.clientId !== token.clientId || grant.accountId !== token.accountId) throw invalidToken();
    if (!token.clientId || !(await provider.Client.find(token.clientId))) throw invalidToken();
    const user = await deps.users.findById(token.accountId);
    if (!user || user.isSuspended) throw invalidToken();
    const impersonated = token.gty === TOKEN_EXCHANGE_GTY;
    if (impersonated) {
      const impersonationId = (token.extra as Record<string, unknown> | undefined)?.[IMPERSONATION_CLAIM];
      if (typeof impersonationId !== 'string' || !(await deps.impersonationActive(impersonationId)))
        throw invalidToken();
    }
    return {
      userId: user.id,
      clientId: token.clientId,
      grantId: grant.jti,
      sessionUid: token.sessionUid,
      scopes: token.scopes,
      impersonated,
    };
  }

  const authenticate: Middleware = async (ctx, next) => {
    const match = /^Bearer ([\w.~+/-]+=*)$/i.exec(ctx.get('authorization'));
    if (!match) throw errors.unauthorized();
    ctx.state.account = await principalOf(match[1]!);
    await next();
  };

  /** Authenticates the user, then requires `scope` on their token (403 `auth.forbidden` without it). */
  const requireScope =
    (scope: string): Middleware =>
    async (ctx, next) =>
      authenticate(ctx, async () => {
        if (!accountOf(ctx).scopes.has(scope)) throw errors.forbidden(scope);
        await next();
      });

  return { authenticate, requireScope };
}

/** The principal the Account API's authentication left on the request; a route outside it has none (a bug). */
export function accountOf(ctx: Context): AccountPrincipal {
  const principal = (ctx.state as { account?: AccountPrincipal }).account;
  if (!principal) throw errors.unauthorized();
  return principal;
}

/** 403 `auth.impersonation_not_allowed` for a change made with an impersonation token. */
export function assertNotImpersonated(principal: AccountPrincipal): void {
  if (principal.impersonated) {
    throw errors.refused(
      'auth.impersonation_not_allowed',
      'an impersonation token may read the account but not change it',
    );
  }
}
