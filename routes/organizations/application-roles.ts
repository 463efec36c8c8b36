import { z } from 'zod';
import { declare, idParam, type ApiRouterDeps } from '../../lib/http/api.ts';
import type { ServiceCore } from '../../lib/core.ts';
import { organizationRole } from '../organization-roles/schemas.ts';
import { addMemberRolesBody, assignApplicationsRolesBody, optionalPageQuery } from './schemas.ts';

const tag = 'Organizations';
const byApplication = z.object({ id: idParam, applicationId: idParam });

/**
 * Organization roles of one member application (MachineToMachine roles only; the application must be a
 * member: 422 otherwise). No event, as in Logto.
 */
export function organizationApplicationRoleRoutes(api: ApiRouterDeps, core: Pick<ServiceCore, 'organizations'>): void {
  const library = core.organizations;

  declare(api, {
    method: 'post',
    path: '/organizations/:id/applications/roles',
    tag,
    summary: 'Assign organization roles to several member applications at once',
    params: z.object({ id: idParam }),
    body: assignApplicationsRolesBody,
    status: 201,
    response: assignApplicationsRolesBody,
    async handler({ params, body }) {
      await library.assignRolesToApplications(params.id, body.applicationIds, body.organizationRoleIds);
      return {
        applicationIds: [...new Set(body.applicationIds)],
        organizationRoleIds: [...new Set(body.organizationRoleIds)],
      };
    },
  });

  declare(api, {
    method: 'get',
    path: '/organizations/:id/applications/:applicationId/roles',
    tag,
    summary: "List a member application's organization roles",
    params: byApplication,
    query: optionalPageQuery,
    pagination: 'optional',
    response: z.array(organizationRole),
    async handler({ params, paged }) {
      return paged(await library.applicationRoles(params.id, params.applicationId));
    },
  });

  declare(api, {
    method: 'post',
    path: '/organizations/:id/applications/:applicationId/roles',
    tag,
    summary: 'Assign organization roles to a member application',
    params: byApplication,
    body: addMemberRolesBody,
    status: 201,
    response: addMemberRolesBody,
    async handler({ params, body }) {
      await library.assignApplicationRoles(params.id, params.applicationId, body.organizationRoleIds);
      return { organizationRoleIds: [...new Set(body.organizationRoleIds)] };
    },
  });

  declare(api, {
    method: 'put',
    path: '/organizations/:id/applications/:applicationId/roles',
    tag,
    summary: "Replace a member application's organization roles",
    params: byApplication,
    body: addMemberRolesBody,
    status: 204,
    handler: ({ params, body }) =>
      library.replaceApplicationRoles(params.id, params.applicationId, body.organizationRoleIds),
  });

  declare(api, {
    method: 'delete',
    path: '/organizations/:id/applications/:applicationId/roles/:organizationRoleId',
    tag,
    summary: 'Remove an organization role from a member application',
    params: byApplication.extend({ organizationRoleId: idParam }),
    status: 204,
    handler: ({ params }) => library.removeApplicationRole(params.id, params.applicationId, params.organizationRoleId),
  });
}
