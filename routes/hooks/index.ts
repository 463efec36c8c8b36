import { z } from 'zod';
import { declare, idParam, type ApiRouterDeps } from '../../lib/http/api.ts';
import type { ServiceCore } from '../../lib/core.ts';
import { DomainError } from '../../lib/errors.ts';
import { subscription } from '../../lib/webhooks/management.ts';
import { deliveryRoutes } from './deliveries.ts';
import { replayRoutes } from './replays.ts';
import {
  createHookBody,
  getHookQuery,
  hook,
  hookWithSigningKey,
  hookWithStats,
  listHooksQuery,
  testHookBody,
  updateHookBody,
} from './schemas.ts';

const tag = 'Hooks';

/**
 * An unknown hook answered with Logto's code for the route: its updates answer `entity.not_exists`, its deletion
 * `entity.not_found` (a read stays `entity.not_exists_with_id`).
 */
async function asLogto<T>(code: 'entity.not_exists' | 'entity.not_found', work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (
      error instanceof DomainError &&
      error.code === 'entity.not_exists_with_id' &&
      (error.data as { entity?: string })?.entity === 'hook'
    ) {
      throw new DomainError(code, error.message, error.data);
    }
    throw error;
  }
}
const byId = z.object({ id: idParam });

/** `/api/hooks`: webhook registrations (Logto's shapes), their test sends, logs and deliveries. */
export function hookRoutes(api: ApiRouterDeps, core: Pick<ServiceCore, 'webhooks'>): void {
  const { webhooks } = core;
  const { management } = webhooks;

  declare(api, {
    method: 'get',
    path: '/hooks',
    tag,
    summary: 'List hooks',
    query: listHooksQuery,
    pagination: 'optional',
    response: z.array(hookWithStats),
    async handler({ query, page, paged }) {
      return paged(await management.list(page, { includeExecutionStats: query.includeExecutionStats }));
    },
  });

  declare(api, {
    method: 'post',
    path: '/hooks',
    tag,
    summary: 'Create a hook (the signing key is shown in this response)',
    body: createHookBody,
    status: 201,
    response: hookWithSigningKey,
    handler: ({ body }) => management.create(body),
  });

  declare(api, {
    method: 'get',
    path: '/hooks/:id',
    tag,
    summary: 'Get a hook',
    params: byId,
    query: getHookQuery,
    response: hookWithStats,
    handler: ({ params, query }) => management.get(params.id, { includeExecutionStats: query.includeExecutionStats }),
  });

  declare(api, {
    method: 'patch',
    path: '/hooks/:id',
    tag,
    summary: 'Update a hook (name, events, config, enabled)',
    refuseEmptyBody: true,
    params: byId,
    body: updateHookBody,
    response: hook,
    handler: ({ params, body: { event, ...changes } }) =>
      asLogto(
        'entity.not_exists',
        management.update(params.id, {
          ...changes,
          ...(changes.events === undefined && event ? { events: [event] } : {}),
        }),
      ),
  });

  declare(api, {
    method: 'delete',
    path: '/hooks/:id',
    tag,
    summary: 'Delete a hook, its deliveries and its logs',
    params: byId,
    status: 204,
    handler: ({ params }) => asLogto('entity.not_found', management.remove(params.id)),
  });

  declare(api, {
    method: 'patch',
    path: '/hooks/:id/signing-key',
    tag,
    summary: 'Rotate the signing key (the previous key keeps signing during WEBHOOK_SIGNING_KEY_GRACE_SECONDS)',
    params: byId,
    response: hookWithSigningKey,
    handler: ({ params }) => asLogto('entity.not_exists', management.rotateSigningKey(params.id)),
  });

  declare(api, {
    method: 'post',
    path: '/hooks/:id/test',
    tag,
    summary: "Send a sample payload per event to the given config, now (422 with the endpoint's answer on failure)",
    params: byId,
    body: testHookBody,
    status: 204,
    handler: ({ params, body }) =>
      webhooks.sendTest(params.id, { events: subscription(body.events), config: body.config }),
  });

  deliveryRoutes(api, webhooks);
  replayRoutes(api, webhooks);
}
