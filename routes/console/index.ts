import { z } from 'zod';
import { declare, type ApiRouterDeps } from '../../lib/http/api.ts';
import type { ServiceCore } from '../../lib/core.ts';
import { password, user, username } from '../users/schemas.ts';

const tag = 'Console';

/**
 * The console's first-admin setup: the only unauthenticated management route. It answers only while no console
 * admin exists, and only with the single-use token of the link the service printed at start.
 */
export function consoleRoutes(api: ApiRouterDeps, core: Pick<ServiceCore, 'consoleAdmins'>): void {
  declare(api, {
    method: 'get',
    path: '/console/setup',
    tag,
    scope: null,
    response: z.object({ adminExists: z.boolean() }),
    summary: 'Whether the console still needs its first admin (the setup page asks before showing its form)',
    handler: async () => ({ adminExists: await core.consoleAdmins.hasAdmin() }),
  });

  declare(api, {
    method: 'post',
    path: '/console/setup',
    tag,
    scope: null,
    status: 201,
    body: z.object({ token: z.string().min(1).max(256), username, password }).strict(),
    response: user,
    summary:
      'Create the first console admin with the one-time setup link printed at start (403 once used or expired, 409 once an admin exists)',
    handler: ({ body }) => core.consoleAdmins.completeSetup(body.token, body.username, body.password),
  });
}
