import { z } from 'zod';
import { declare, idParam, pagination, type ApiRouterDeps } from '../../lib/http/api.ts';
import type { ServiceCore } from '../../lib/core.ts';
import { errors } from '../../lib/errors.ts';
import { role, ROLE_SEARCH_FIELDS } from '../roles/schemas.ts';
import {
  application,
  APPLICATION_SEARCH_FIELDS,
  applicationWithSecret,
  createApplicationBody,
  listApplicationsQuery,
  redirectUriIssues,
  roleIdsBody,
  updateApplicationBody,
} from './schemas.ts';

const tag = 'Applications';
const byId = z.object({ id: idParam });
const assignedRoles = z.object({ roleIds: z.array(z.string()) });

export function applicationRoutes(api: ApiRouterDeps, core: Pick<ServiceCore, 'applications'>): void {
  const library = core.applications;

  declare(api, {
    method: 'get',
    path: '/applications',
    tag,
    summary: 'List applications',
    query: listApplicationsQuery,
    search: APPLICATION_SEARCH_FIELDS,
    pagination: 'optional',
    response: z.array(application),
    async handler({ query, search, page, paged }) {
      return paged(
        await library.list(page, {
          search,
          types: query.types,
          isThirdParty: query.isThirdParty,
          excludeRoleId: query.excludeRoleId,
          excludeOrganizationId: query.excludeOrganizationId,
        }),
      );
    },
  });

  declare(api, {
    method: 'post',
    path: '/applications',
    tag,
    summary: 'Create an application (the secret is shown once)',
    body: createApplicationBody,
    status: 201,
    response: applicationWithSecret.partial({ secret: true }),
    handler: ({ body }) => library.create(body),
  });

  declare(api, {
    method: 'get',
    path: '/applications/:id',
    tag,
    summary: 'Get an application',
    params: byId,
    response: application,
    handler: ({ params }) => library.mustFind(params.id),
  });

  declare(api, {
    method: 'patch',
    path: '/applications/:id',
    tag,
    summary: 'Update an application',
    refuseEmptyBody: true,
    params: byId,
    body: updateApplicationBody,
    response: application,
    async handler({ params, body }) {
      if (body.oidcClientMetadata) {
        // The type cannot change, so the stored one decides which redirect URIs are acceptable.
        const { type } = await library.mustFind(params.id);
        const issues = redirectUriIssues(type, body.oidcClientMetadata).map((issue) => ({
          path: ['body', ...issue.path].join('.'),
          message: issue.message,
        }));
        if (issues.length) {
          throw errors.invalidInput(`invalid body: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, {
            issues,
          });
        }
      }
      return library.update(params.id, body);
    },
  });

  declare(api, {
    method: 'post',
    path: '/applications/:id/secret',
    tag,
    summary: 'Rotate the secret of a confidential application',
    params: byId,
    response: applicationWithSecret,
    handler: ({ params }) => library.rotateSecret(params.id),
  });

  declare(api, {
    method: 'delete',
    path: '/applications/:id',
    tag,
    summary: 'Delete an application',
    params: byId,
    status: 204,
    async handler({ params }) {
      await library.delete(params.id);
    },
  });

  declare(api, {
    method: 'get',
    path: '/applications/:id/roles',
    tag,
    summary: 'List the roles of an M2M application',
    params: byId,
    query: pagination,
    search: ROLE_SEARCH_FIELDS,
    response: z.array(role),
    async handler({ params, page, search, paged }) {
      return paged(await library.rolesOf(params.id, page, search));
    },
  });

  declare(api, {
    method: 'post',
    path: '/applications/:id/roles',
    tag,
    summary: 'Assign roles to an M2M application',
    params: byId,
    body: roleIdsBody,
    status: 201,
    response: assignedRoles.extend({ addedRoleIds: z.array(z.string()) }),
    async handler({ params, body }) {
      const addedRoleIds = await library.assignRoles(params.id, body.roleIds);
      return { roleIds: body.roleIds, addedRoleIds };
    },
  });

  declare(api, {
    method: 'put',
    path: '/applications/:id/roles',
    tag,
    summary: 'Replace the roles of an M2M application',
    params: byId,
    body: roleIdsBody,
    response: assignedRoles,
    async handler({ params, body }) {
      await library.replaceRoles(params.id, body.roleIds);
      return { roleIds: body.roleIds };
    },
  });

  declare(api, {
    method: 'delete',
    path: '/applications/:id/roles/:roleId',
    tag,
    summary: 'Remove a role from an M2M application',
    params: z.object({ id: idParam, roleId: idParam }),
    status: 204,
    async handler({ params }) {
      await library.removeRole(params.id, params.roleId);
    },
  });
}
