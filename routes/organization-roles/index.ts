import { z } from 'zod';
import { declare, idParam, type ApiRouterDeps } from '../../lib/http/api.ts';
import type { ServiceCore } from '../../lib/core.ts';
import { optionalPageQuery, searchQuery, TEMPLATE_SEARCH_FIELDS } from '../organizations/schemas.ts';
import { organizationScope } from '../organization-scopes/schemas.ts';
import { organizationRoleResourceScopeRoutes } from './resource-scopes.ts';
import {
  addScopesBody,
  createOrganizationRoleBody,
  organizationRole,
  organizationRoleWithScopes,
  replaceScopesBody,
  updateOrganizationRoleBody,
} from './schemas.ts';

const tag = 'Organization roles';
const byId = z.object({ id: idParam });

export function organizationRoleRoutes(api: ApiRouterDeps, core: Pick<ServiceCore, 'organizations'>): void {
  const library = core.organizations.template;

  declare(api, {
    method: 'get',
    path: '/organization-roles',
    tag,
    summary: 'List organization roles with their scopes',
    query: searchQuery,
    search: TEMPLATE_SEARCH_FIELDS,
    response: z.array(organizationRoleWithScopes),
    async handler({ query, search, page, paged }) {
      const listed = await library.listRoles(page, query.q ?? search);
      const items = await Promise.all(
        listed.items.map(async (role) => {
          const resourceScopes = await library.resourceScopesWithResources(role.id);
          return { ...role, resourceScopes };
        }),
      );
      return paged({ items, total: listed.total });
    },
  });

  declare(api, {
    method: 'post',
    path: '/organization-roles',
    tag,
    summary: 'Create an organization role',
    body: createOrganizationRoleBody,
    status: 201,
    response: organizationRole,
    handler({ body }) {
      const { organizationScopeIds = [], resourceScopeIds = [], ...input } = body;
      return library.createRole(input, organizationScopeIds, resourceScopeIds);
    },
  });

  declare(api, {
    method: 'get',
    path: '/organization-roles/:id',
    tag,
    summary: 'Get an organization role',
    params: byId,
    response: organizationRole,
    handler: ({ params }) => library.mustFindRole(params.id),
  });

  declare(api, {
    method: 'patch',
    path: '/organization-roles/:id',
    tag,
    summary: 'Update an organization role',
    refuseEmptyBody: true,
    params: byId,
    body: updateOrganizationRoleBody,
    response: organizationRole,
    handler: ({ params, body }) => library.updateRole(params.id, body),
  });

  declare(api, {
    method: 'delete',
    path: '/organization-roles/:id',
    tag,
    summary: 'Delete an organization role, also from members',
    params: byId,
    status: 204,
    async handler({ params }) {
      await library.deleteRole(params.id);
    },
  });

  declare(api, {
    method: 'get',
    path: '/organization-roles/:id/scopes',
    tag,
    summary: 'List the scopes of an organization role',
    params: byId,
    query: optionalPageQuery,
    pagination: 'optional',
    response: z.array(organizationScope),
    async handler({ params, paged }) {
      const scopes = await library.scopesOfRole(params.id);
      return paged(scopes);
    },
  });

  declare(api, {
    method: 'post',
    path: '/organization-roles/:id/scopes',
    tag,
    summary: "Add scopes to an organization role; returns the role's scopes",
    params: byId,
    body: addScopesBody,
    status: 201,
    response: z.array(organizationScope),
    handler: ({ params, body }) => library.addRoleScopes(params.id, body.organizationScopeIds),
  });

  declare(api, {
    method: 'put',
    path: '/organization-roles/:id/scopes',
    tag,
    summary: 'Replace the scopes of an organization role',
    params: byId,
    body: replaceScopesBody,
    status: 204,
    async handler({ params, body }) {
      await library.replaceRoleScopes(params.id, body.organizationScopeIds);
    },
  });

  declare(api, {
    method: 'delete',
    path: '/organization-roles/:id/scopes/:organizationScopeId',
    tag,
    summary: 'Remove a scope from an organization role',
    params: byId.extend({ organizationScopeId: idParam }),
    status: 204,
    async handler({ params }) {
      await library.removeRoleScope(params.id, params.organizationScopeId);
    },
  });

  organizationRoleResourceScopeRoutes(api, core);
}
