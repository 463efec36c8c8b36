import { z } from 'zod';
import { declare, idParam, type ApiRouterDeps } from '../../lib/http/api.ts';
import type { ServiceCore } from '../../lib/core.ts';
import { optionalPageQuery } from '../organizations/schemas.ts';
import { scope } from '../resources/schemas.ts';
import { addResourceScopesBody, replaceResourceScopesBody } from './schemas.ts';

const tag = 'Organization roles';
const byId = z.object({ id: idParam });

/**
 * API-resource scopes of an organization role: members holding the role get them in tokens issued within the
 * organization for that API (never management API scopes: 422).
 */
export function organizationRoleResourceScopeRoutes(
  api: ApiRouterDeps,
  core: Pick<ServiceCore, 'organizations'>,
): void {
  const library = core.organizations.template;

  declare(api, {
    method: 'get',
    path: '/organization-roles/:id/resource-scopes',
    tag,
    summary: 'List the API-resource scopes of an organization role',
    params: byId,
    query: optionalPageQuery,
    pagination: 'optional',
    response: z.array(scope),
    async handler({ params, paged }) {
      return paged(await library.resourceScopesOfRole(params.id));
    },
  });

  declare(api, {
    method: 'post',
    path: '/organization-roles/:id/resource-scopes',
    tag,
    summary: "Add API-resource scopes to an organization role; returns the role's resource scopes",
    params: byId,
    body: addResourceScopesBody,
    status: 201,
    response: z.array(scope),
    handler: ({ params, body }) => library.addRoleResourceScopes(params.id, body.scopeIds),
  });

  declare(api, {
    method: 'put',
    path: '/organization-roles/:id/resource-scopes',
    tag,
    summary: 'Replace the API-resource scopes of an organization role',
    params: byId,
    body: replaceResourceScopesBody,
    status: 204,
    async handler({ params, body }) {
      await library.replaceRoleResourceScopes(params.id, body.scopeIds);
    },
  });

  declare(api, {
    method: 'delete',
    path: '/organization-roles/:id/resource-scopes/:scopeId',
    tag,
    summary: 'Remove an API-resource scope from an organization role',
    params: byId.extend({ scopeId: idParam }),
    status: 204,
    async handler({ params }) {
      await library.removeRoleResourceScope(params.id, params.scopeId);
    },
  });
}
