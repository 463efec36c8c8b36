import { z } from 'zod';
import { declare, idParam, type ApiRouterDeps } from '../../lib/http/api.ts';
import type { ServiceCore } from '../../lib/core.ts';
import { application, APPLICATION_SEARCH_FIELDS } from '../applications/schemas.ts';
import {
  addApplicationsBody,
  addUsersBody,
  memberUser,
  searchQuery,
  replaceApplicationsBody,
  replaceUsersBody,
  membersQuery,
} from './schemas.ts';
import { USER_SEARCH_FIELDS } from '../users/schemas.ts';

const tag = 'Organizations';
const byId = z.object({ id: idParam });

/** Member users and applications; every change that changed something emits Organization.Membership.Updated. */
export function organizationMemberRoutes(api: ApiRouterDeps, core: Pick<ServiceCore, 'organizations'>): void {
  const library = core.organizations;

  declare(api, {
    method: 'get',
    path: '/organizations/:id/users',
    tag,
    summary: 'List member users with their organization roles',
    params: byId,
    query: membersQuery,
    search: USER_SEARCH_FIELDS,
    response: z.array(memberUser),
    async handler({ params, query, search, page, paged }) {
      return paged(await library.listUsers(params.id, page, query.q ?? search, query.organizationRoleId));
    },
  });

  declare(api, {
    method: 'post',
    path: '/organizations/:id/users',
    tag,
    summary: 'Add member users',
    params: byId,
    body: addUsersBody,
    status: 201,
    response: addUsersBody,
    async handler({ params, body }) {
      await library.addUsers(params.id, body.userIds);
      return { userIds: [...new Set(body.userIds)] };
    },
  });

  declare(api, {
    method: 'put',
    path: '/organizations/:id/users',
    tag,
    summary: 'Replace member users',
    params: byId,
    body: replaceUsersBody,
    status: 204,
    async handler({ params, body }) {
      await library.replaceUsers(params.id, body.userIds);
    },
  });

  declare(api, {
    method: 'delete',
    path: '/organizations/:id/users/:userId',
    tag,
    summary: 'Remove a member user and their organization roles',
    params: z.object({ id: idParam, userId: idParam }),
    status: 204,
    async handler({ params }) {
      await library.removeUser(params.id, params.userId);
    },
  });

  declare(api, {
    method: 'get',
    path: '/organizations/:id/applications',
    tag,
    summary: 'List member applications',
    params: byId,
    query: searchQuery,
    search: APPLICATION_SEARCH_FIELDS,
    response: z.array(application),
    async handler({ params, query, search, page, paged }) {
      return paged(await library.listApplications(params.id, page, query.q ?? search));
    },
  });

  declare(api, {
    method: 'post',
    path: '/organizations/:id/applications',
    tag,
    summary: 'Add member applications, MachineToMachine only',
    params: byId,
    body: addApplicationsBody,
    status: 201,
    response: addApplicationsBody,
    async handler({ params, body }) {
      await library.addApplications(params.id, body.applicationIds);
      return { applicationIds: [...new Set(body.applicationIds)] };
    },
  });

  declare(api, {
    method: 'put',
    path: '/organizations/:id/applications',
    tag,
    summary: 'Replace member applications',
    params: byId,
    body: replaceApplicationsBody,
    status: 204,
    async handler({ params, body }) {
      await library.replaceApplications(params.id, body.applicationIds);
    },
  });

  declare(api, {
    method: 'delete',
    path: '/organizations/:id/applications/:applicationId',
    tag,
    summary: 'Remove a member application',
    params: z.object({ id: idParam, applicationId: idParam }),
    status: 204,
    async handler({ params }) {
      await library.removeApplication(params.id, params.applicationId);
    },
  });
}
