import { z } from 'zod';
import { declare, idParam, type ApiRouterDeps } from '../../lib/http/api.ts';
import type { ServiceCore } from '../../lib/core.ts';
import { scope } from '../resources/schemas.ts';
import { roleMemberRoutes } from './members.ts';
import {
  createRoleBody,
  listedRole,
  listRolesQuery,
  role,
  ROLE_SCOPE_SEARCH_FIELDS,
  ROLE_SEARCH_FIELDS,
  roleScopesQuery,
  scopeIdsBody,
  updateRoleBody,
} from './schemas.ts';

const tag = 'Roles';
const byId = z.object({ id: idParam });

export function roleRoutes(api: ApiRouterDeps, core: Pick<ServiceCore, 'roles'>): void {
  const rolesLibrary = core.roles;

  declare(api, {
    method: 'get',
    path: '/roles',
    tag,
    summary: 'List roles',
    query: listRolesQuery,
    search: ROLE_SEARCH_FIELDS,
    response: z.array(listedRole),
    async handler({ query, search, page, paged }) {
      return paged(
        await rolesLibrary.list(page, {
          search,
          type: query.type,
          excludeUserId: query.excludeUserId,
          excludeApplicationId: query.excludeApplicationId,
        }),
      );
    },
  });

  declare(api, {
    method: 'post',
    path: '/roles',
    tag,
    summary: 'Create a role',
    body: createRoleBody,
    status: 201,
    response: role,
    async handler({ body }) {
      const { scopeIds = [], ...input } = body;
      return (await rolesLibrary.create(input, scopeIds)).role;
    },
  });

  declare(api, {
    method: 'get',
    path: '/roles/:id',
    tag,
    summary: 'Get a role',
    params: byId,
    response: role,
    handler: ({ params }) => rolesLibrary.mustFind(params.id),
  });

  declare(api, {
    method: 'patch',
    path: '/roles/:id',
    tag,
    summary: 'Update a role',
    refuseEmptyBody: true,
    params: byId,
    body: updateRoleBody,
    response: role,
    handler: ({ params, body }) => rolesLibrary.update(params.id, body),
  });

  declare(api, {
    method: 'delete',
    path: '/roles/:id',
    tag,
    summary: 'Delete a role',
    params: byId,
    status: 204,
    async handler({ params }) {
      await rolesLibrary.delete(params.id);
    },
  });

  declare(api, {
    method: 'get',
    path: '/roles/:id/scopes',
    tag,
    summary: 'List the scopes of a role',
    params: byId,
    query: roleScopesQuery,
    search: ROLE_SCOPE_SEARCH_FIELDS,
    pagination: 'optional',
    response: z.array(scope),
    async handler({ params, search, page, paged }) {
      return paged(await rolesLibrary.listScopes(params.id, page, search));
    },
  });

  declare(api, {
    method: 'post',
    path: '/roles/:id/scopes',
    tag,
    summary: 'Add scopes to a role',
    params: byId,
    body: scopeIdsBody,
    status: 201,
    response: z.array(scope),
    handler: ({ params, body }) => rolesLibrary.addScopes(params.id, body.scopeIds),
  });

  declare(api, {
    method: 'delete',
    path: '/roles/:id/scopes/:scopeId',
    tag,
    summary: 'Remove a scope from a role',
    params: z.object({ id: idParam, scopeId: idParam }),
    status: 204,
    async handler({ params }) {
      await rolesLibrary.removeScope(params.id, params.scopeId);
    },
  });

  roleMemberRoutes(api, core);
}
