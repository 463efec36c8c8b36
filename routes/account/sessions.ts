import { z } from 'zod';
import { declare, idParam, type ApiRouterDeps } from '../../lib/http/api.ts';
import type { ServiceCore } from '../../lib/core.ts';
import { REVOKE_GRANTS_TARGETS } from '../../lib/account/sessions.ts';
import { SESSIONS_SCOPE } from '../../lib/oidc/claims.ts';

const tag = 'Account';

const authorization = z.object({
  sid: z.string().optional(),
  grantId: z.string().optional(),
  persistsLogout: z.boolean().optional(),
});

const accountSession = z.object({
  payload: z.object({
    uid: z.string().describe('The id to end the session by'),
    jti: z.string(),
    iat: z.number(),
    exp: z.number(),
    kind: z.literal('Session'),
    loginTs: z.number().describe('When the user signed in, in seconds since the epoch'),
    accountId: z.string(),
    authorizations: z
      .record(z.string(), authorization)
      .optional()
      .describe('Per application id: what the session gave it'),
  }),
  lastSubmission: z.null(),
  clientId: z.string().nullable().describe('The application the user signed in through'),
  accountId: z.string(),
  expiresAt: z.number().describe('Milliseconds since the epoch'),
  isCurrent: z.boolean().describe('The session the calling token was issued in'),
});

/** Logto's session management of the Account API: the user's browser sessions, under the account center's `session` field. */
export function accountSessionRoutes(user: ApiRouterDeps, core: Pick<ServiceCore, 'account'>): void {
  const { account } = core;

  declare(user, {
    method: 'get',
    path: '/my-account/sessions',
    tag,
    scope: 'openid',
    response: z.object({ sessions: z.array(accountSession) }),
    summary: `The signed-in user's live sessions (identity gate; the token needs ${SESSIONS_SCOPE}, else 401 auth.unauthorized)`,
    async handler({ koa }) {
      const { principal } = await account.authorize(koa, { field: 'session', access: 'read', identity: true });
      return account.sessions.list(principal);
    },
  });

  declare(user, {
    method: 'delete',
    path: '/my-account/sessions/:sessionId',
    tag,
    scope: 'openid',
    params: z.object({ sessionId: idParam }),
    query: z.object({ revokeGrantsTarget: z.enum(REVOKE_GRANTS_TARGETS).optional() }).strict(),
    status: 204,
    summary:
      "Sign one of the user's sessions out, with `revokeGrantsTarget` also the grants it gave every application " +
      '(`all`) or first-party ones (`firstParty`); first-party applications only (identity gate)',
    async handler({ koa, params, query }) {
      const { principal } = await account.authorize(koa, { field: 'session', access: 'edit', identity: true });
      await account.sessions.end(principal, params.sessionId, query.revokeGrantsTarget);
    },
  });
}
