import { z } from 'zod';
import { declare, idParam, type ApiRouterDeps } from '../../lib/http/api.ts';
import type { ServiceCore } from '../../lib/core.ts';
import {
  createResourceBody,
  createScopeBody,
  isDefaultBody,
  listResourcesQuery,
  listScopesQuery,
  resource,
  resourceWithScopes,
  RESOURCE_SEARCH_FIELDS,
  scope,
  SCOPE_SEARCH_FIELDS,
  updateResourceBody,
  updateScopeBody,
} from './schemas.ts';

const tag = 'API resources';
const byId = z.object({ id: idParam });
const byResource = z.object({ resourceId: idParam });
const byScope = z.object({ resourceId: idParam, scopeId: idParam });

export function resourceRoutes(api: ApiRouterDeps, core: Pick<ServiceCore, 'resources'>): void {
  const library = core.resources;

  declare(api, {
    method: 'get',
    path: '/resources',
    tag,
    summary: 'List API resources (every one without page or page_size)',
    query: listResourcesQuery,
    search: RESOURCE_SEARCH_FIELDS,
    pagination: 'optional',
    response: z.array(resourceWithScopes),
    async handler({ query, search, page, paged }) {
      return paged(await library.list(page, search, query.includeScopes));
    },
  });

  declare(api, {
    method: 'post',
    path: '/resources',
    tag,
    summary: 'Create an API resource',
    body: createResourceBody,
    status: 201,
    response: resource,
    handler: ({ body }) => library.create(body),
  });

  declare(api, {
    method: 'get',
    path: '/resources/:id',
    tag,
    summary: 'Get an API resource',
    params: byId,
    response: resource,
    handler: ({ params }) => library.mustFind(params.id),
  });

  declare(api, {
    method: 'patch',
    path: '/resources/:id',
    tag,
    summary: 'Update an API resource',
    refuseEmptyBody: true,
    params: byId,
    body: updateResourceBody,
    response: resource,
    handler: ({ params, body }) => library.update(params.id, body),
  });

  declare(api, {
    method: 'patch',
    path: '/resources/:id/is-default',
    tag,
    summary:
      'Make an API resource the default (or not): requests without `resource` get tokens for it; setting one clears the other',
    params: byId,
    body: isDefaultBody,
    response: resource,
    handler: ({ params, body }) => library.setDefault(params.id, body.isDefault),
  });

  declare(api, {
    method: 'delete',
    path: '/resources/:id',
    tag,
    summary: 'Delete an API resource and its scopes',
    params: byId,
    status: 204,
    async handler({ params }) {
      await library.delete(params.id);
    },
  });

  declare(api, {
    method: 'get',
    path: '/resources/:resourceId/scopes',
    tag,
    summary: 'List the scopes of an API resource',
    params: byResource,
    query: listScopesQuery,
    search: SCOPE_SEARCH_FIELDS,
    response: z.array(scope),
    async handler({ params, search, page, paged }) {
      return paged(await library.listScopes(params.resourceId, page, search));
    },
  });

  declare(api, {
    method: 'post',
    path: '/resources/:resourceId/scopes',
    tag,
    summary: 'Create a scope',
    params: byResource,
    body: createScopeBody,
    status: 201,
    response: scope,
    handler: ({ params, body }) => library.createScope(params.resourceId, body),
  });

  declare(api, {
    method: 'patch',
    path: '/resources/:resourceId/scopes/:scopeId',
    tag,
    summary: 'Update a scope',
    refuseEmptyBody: true,
    params: byScope,
    body: updateScopeBody,
    response: scope,
    handler: ({ params, body }) => library.updateScope(params.resourceId, params.scopeId, body),
  });

  declare(api, {
    method: 'delete',
    path: '/resources/:resourceId/scopes/:scopeId',
    tag,
    summary: 'Delete a scope',
    params: byScope,
    status: 204,
    async handler({ params }) {
      await library.deleteScope(params.resourceId, params.scopeId);
    },
  });
}
