import { z } from 'zod';
import { declare, idParam, pagination, type ApiRouterDeps } from '../../lib/http/api.ts';
import type { ServiceCore } from '../../lib/core.ts';
import { role } from '../roles/schemas.ts';
import { organizationWithRoles } from '../organizations/schemas.ts';
import { replaceRoleIdsBody, roleIdsBody, USER_ROLE_SEARCH_FIELDS } from './schemas.ts';

const tag = 'Users';
const byUser = z.object({ userId: idParam });
/** Logto's answer to an assignment: the ids asked for, and those the user did not hold before. */
const assignedRoles = z.object({ roleIds: z.array(z.string()), addedRoleIds: z.array(z.string()) });

/** A user's roles (only `User` roles; assignment emits no event, as in Logto) and organizations. */
export function userRelationRoutes(api: ApiRouterDeps, core: Pick<ServiceCore, 'organizations' | 'users'>): void {
  const library = core.users;

  declare(api, {
    method: 'get',
    path: '/users/:userId/roles',
    tag,
    summary: "List a user's roles",
    params: byUser,
    query: pagination,
    search: USER_ROLE_SEARCH_FIELDS,
    response: z.array(role),
    async handler({ params, search, page, paged }) {
      return paged(await library.listRoles(params.userId, page, search));
    },
  });

  declare(api, {
    method: 'post',
    path: '/users/:userId/roles',
    tag,
    summary: 'Assign roles to a user',
    params: byUser,
    body: roleIdsBody,
    status: 201,
    response: assignedRoles,
    async handler({ params, body }) {
      const addedRoleIds = await library.assignRoles(params.userId, body.roleIds);
      return { roleIds: [...new Set(body.roleIds)], addedRoleIds };
    },
  });

  declare(api, {
    method: 'put',
    path: '/users/:userId/roles',
    tag,
    summary: "Replace a user's roles",
    params: byUser,
    body: replaceRoleIdsBody,
    response: replaceRoleIdsBody,
    async handler({ params, body }) {
      await library.replaceRoles(params.userId, body.roleIds);
      return { roleIds: [...new Set(body.roleIds)] };
    },
  });

  declare(api, {
    method: 'delete',
    path: '/users/:userId/roles/:roleId',
    tag,
    summary: 'Remove a role from a user',
    params: z.object({ userId: idParam, roleId: idParam }),
    status: 204,
    handler: ({ params }) => library.removeRole(params.userId, params.roleId),
  });

  declare(api, {
    method: 'get',
    path: '/users/:userId/organizations',
    tag,
    summary: "List a user's organizations with the user's organization roles in each",
    params: byUser,
    response: z.array(organizationWithRoles),
    async handler({ params }) {
      await library.mustFind(params.userId);
      return core.organizations.organizationsOfUser(params.userId);
    },
  });
}
