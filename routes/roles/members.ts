import { z } from 'zod';
import { declare, idParam, pagination, type ApiRouterDeps } from '../../lib/http/api.ts';
import type { ServiceCore } from '../../lib/core.ts';
import { application, APPLICATION_SEARCH_FIELDS } from '../applications/schemas.ts';
import { user, USER_SEARCH_FIELDS } from '../users/schemas.ts';

const tag = 'Roles';
const byId = z.object({ id: idParam });
const ids = z.array(z.string().min(1).max(128)).min(1).max(100);
const userIdsBody = z.object({ userIds: ids }).strict();
const applicationIdsBody = z.object({ applicationIds: ids }).strict();

/** Who holds a role: users (User roles) and MachineToMachine applications (MachineToMachine roles). */
export function roleMemberRoutes(api: ApiRouterDeps, core: Pick<ServiceCore, 'roles'>): void {
  const library = core.roles;

  declare(api, {
    method: 'get',
    path: '/roles/:id/users',
    tag,
    summary: 'List the users holding a role',
    params: byId,
    query: pagination,
    search: USER_SEARCH_FIELDS,
    response: z.array(user),
    async handler({ params, page, search, paged }) {
      return paged(await library.usersOf(params.id, page, search));
    },
  });

  declare(api, {
    method: 'post',
    path: '/roles/:id/users',
    tag,
    summary: 'Assign a User role to users',
    params: byId,
    body: userIdsBody,
    status: 201,
    response: userIdsBody,
    async handler({ params, body }) {
      await library.assignUsers(params.id, body.userIds);
      return { userIds: [...new Set(body.userIds)] };
    },
  });

  declare(api, {
    method: 'delete',
    path: '/roles/:id/users/:userId',
    tag,
    summary: 'Remove a role from a user',
    params: byId.extend({ userId: idParam }),
    status: 204,
    handler: ({ params }) => library.removeUser(params.id, params.userId),
  });

  declare(api, {
    method: 'get',
    path: '/roles/:id/applications',
    tag,
    summary: 'List the applications holding a role',
    params: byId,
    query: pagination,
    search: APPLICATION_SEARCH_FIELDS,
    response: z.array(application),
    async handler({ params, page, search, paged }) {
      return paged(await library.applicationsOf(params.id, page, search));
    },
  });

  declare(api, {
    method: 'post',
    path: '/roles/:id/applications',
    tag,
    summary: 'Assign a MachineToMachine role to applications',
    params: byId,
    body: applicationIdsBody,
    status: 201,
    response: applicationIdsBody,
    async handler({ params, body }) {
      await library.assignApplications(params.id, body.applicationIds);
      return { applicationIds: [...new Set(body.applicationIds)] };
    },
  });

  declare(api, {
    method: 'delete',
    path: '/roles/:id/applications/:applicationId',
    tag,
    summary: 'Remove a role from an application',
    params: byId.extend({ applicationId: idParam }),
    status: 204,
    handler: ({ params }) => library.removeApplication(params.id, params.applicationId),
  });
}
