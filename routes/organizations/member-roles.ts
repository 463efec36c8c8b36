import { z } from 'zod';
import { declare, idParam, type ApiRouterDeps } from '../../lib/http/api.ts';
import type { ServiceCore } from '../../lib/core.ts';
import { organizationRole } from '../organization-roles/schemas.ts';
import { organizationScope } from '../organization-scopes/schemas.ts';
import {
  addMemberRolesBody,
  addMemberRolesByNameBody,
  assignMembersRolesBody,
  memberRolesBody,
  optionalPageQuery,
} from './schemas.ts';

const tag = 'Organizations';
const byMember = z.object({ id: idParam, userId: idParam });

/** Organization roles of one member user (the user must be a member: 422 otherwise). No event, as in Logto. */
export function organizationMemberRoleRoutes(api: ApiRouterDeps, core: Pick<ServiceCore, 'organizations'>): void {
  const library = core.organizations;

  declare(api, {
    method: 'post',
    path: '/organizations/:id/users/roles',
    tag,
    summary: 'Assign organization roles to several member users at once',
    params: z.object({ id: idParam }),
    body: assignMembersRolesBody,
    status: 201,
    response: assignMembersRolesBody,
    async handler({ params, body }) {
      await library.assignRolesToMembers(params.id, body.userIds, body.organizationRoleIds);
      return { userIds: [...new Set(body.userIds)], organizationRoleIds: [...new Set(body.organizationRoleIds)] };
    },
  });

  declare(api, {
    method: 'get',
    path: '/organizations/:id/users/:userId/scopes',
    tag,
    summary: "List the organization scopes a member's organization roles grant",
    params: byMember,
    response: z.array(organizationScope),
    handler: ({ params }) => library.memberScopes(params.id, params.userId),
  });

  declare(api, {
    method: 'get',
    path: '/organizations/:id/users/:userId/roles',
    tag,
    summary: "List a member's organization roles",
    params: byMember,
    query: optionalPageQuery,
    pagination: 'optional',
    response: z.array(organizationRole),
    async handler({ params, paged }) {
      const roles = await library.memberRoles(params.id, params.userId);
      return paged(roles);
    },
  });

  declare(api, {
    method: 'post',
    path: '/organizations/:id/users/:userId/roles',
    tag,
    summary: 'Assign organization roles to a member',
    params: byMember,
    body: addMemberRolesByNameBody,
    status: 201,
    response: addMemberRolesBody,
    async handler({ params, body }) {
      const organizationRoleIds = await core.organizations.template.resolveRoleIds(body);
      await library.assignMemberRoles(params.id, params.userId, organizationRoleIds);
      return { organizationRoleIds };
    },
  });

  declare(api, {
    method: 'put',
    path: '/organizations/:id/users/:userId/roles',
    tag,
    summary: "Replace a member's organization roles",
    params: byMember,
    body: memberRolesBody,
    status: 204,
    async handler({ params, body }) {
      await library.replaceMemberRoles(
        params.id,
        params.userId,
        await core.organizations.template.resolveRoleIds(body),
      );
    },
  });

  declare(api, {
    method: 'delete',
    path: '/organizations/:id/users/:userId/roles/:organizationRoleId',
    tag,
    summary: 'Remove an organization role from a member',
    params: byMember.extend({ organizationRoleId: idParam }),
    status: 204,
    handler: ({ params }) => library.removeMemberRole(params.id, params.userId, params.organizationRoleId),
  });
}
