import { z } from 'zod';
import { declare, idParam, type ApiRouterDeps } from '../../lib/http/api.ts';
import type { ServiceCore } from '../../lib/core.ts';
import type { EventState } from '../../lib/events/route-events.ts';
import type { OrganizationScope } from '../../lib/organizations/scopes-repository.ts';
import type { Scope } from '../../lib/resources/repository.ts';
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

/**
 * OrganizationRole.Scopes.Updated carries the role's scopes after the change and the role's id (its
 * organization scopes; its API-resource scopes when only those changed).
 */
function announceScopes(
  events: EventState,
  organizationRoleId: string,
  scopes: OrganizationScope[] | Scope[] | false,
): void {
  events.events = {
    ...events.events,
    'OrganizationRole.Scopes.Updated': scopes && { data: scopes, organizationRoleId },
  };
}

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
    async handler({ body, events }) {
      const { organizationScopeIds = [], resourceScopeIds = [], ...input } = body;
      const created = await library.createRole(input, organizationScopeIds, resourceScopeIds);
      if (organizationScopeIds.length > 0) announceScopes(events, created.id, await library.scopesOfRole(created.id));
      else if (resourceScopeIds.length > 0)
        announceScopes(events, created.id, await library.resourceScopesOfRole(created.id));
      else announceScopes(events, created.id, false);
      return created;
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
    async handler({ params, events }) {
      events.snapshot = await library.deleteRole(params.id);
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
    async handler({ params, body, events }) {
      const scopes = await library.addRoleScopes(params.id, body.organizationScopeIds);
      announceScopes(events, params.id, scopes);
      return scopes;
    },
  });

  declare(api, {
    method: 'put',
    path: '/organization-roles/:id/scopes',
    tag,
    summary: 'Replace the scopes of an organization role',
    params: byId,
    body: replaceScopesBody,
    status: 204,
    async handler({ params, body, events }) {
      announceScopes(events, params.id, await library.replaceRoleScopes(params.id, body.organizationScopeIds));
    },
  });

  declare(api, {
    method: 'delete',
    path: '/organization-roles/:id/scopes/:organizationScopeId',
    tag,
    summary: 'Remove a scope from an organization role',
    params: byId.extend({ organizationScopeId: idParam }),
    status: 204,
    async handler({ params, events }) {
      announceScopes(events, params.id, await library.removeRoleScope(params.id, params.organizationScopeId));
    },
  });

  organizationRoleResourceScopeRoutes(api, core);
}
