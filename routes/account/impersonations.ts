import { z } from 'zod';
import { declare, pagination, type ApiRouterDeps } from '../../lib/http/api.ts';
import type { ServiceCore } from '../../lib/core.ts';
import { IMPERSONATION_STATUSES } from '../../lib/impersonation/record.ts';

const impersonationOfMine = z.object({
  id: z.string(),
  issuedAt: z.number(),
  expiresAt: z.number(),
  revokedAt: z.number().nullable(),
  status: z.enum(IMPERSONATION_STATUSES),
  reason: z.string().nullable().describe('Why, as given when the impersonation was prepared'),
  application: z.object({ id: z.string(), name: z.string().nullable() }),
  actor: z
    .object({ id: z.string(), name: z.string().nullable(), username: z.string().nullable() })
    .nullable()
    .describe('Who acted as the user, when the exchange named them; null when the application acted alone'),
});

/** The user's right to know: every impersonation of their account, newest first. */
export function accountImpersonationRoutes(
  user: ApiRouterDeps,
  core: Pick<ServiceCore, 'account' | 'impersonation'>,
): void {
  declare(user, {
    method: 'get',
    path: '/my-account/impersonations',
    tag: 'Account',
    scope: 'openid',
    query: pagination,
    response: z.array(impersonationOfMine),
    summary:
      'When the signed-in user was impersonated, through which application, by whom, why, and whether it still runs',
    async handler({ koa, page, paged }) {
      const { principal } = await core.account.authorize(koa, { access: 'read' });
      return paged(await core.impersonation.listForUser(principal.userId, page));
    },
  });
}
