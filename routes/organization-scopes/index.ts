import { z } from 'zod';
import { declare, idParam, type ApiRouterDeps } from '../../lib/http/api.ts';
import type { ServiceCore } from '../../lib/core.ts';
import { optionalSearchQuery, TEMPLATE_SEARCH_FIELDS } from '../organizations/schemas.ts';
import { createOrganizationScopeBody, organizationScope, updateOrganizationScopeBody } from './schemas.ts';

const tag = 'Organization scopes';
const byId = z.object({ id: idParam });

export function organizationScopeRoutes(api: ApiRouterDeps, core: Pick<ServiceCore, 'organizations'>): void {
  const library = core.organizations.template;

  declare(api, {
    method: 'get',
    path: '/organization-scopes',
    tag,
    summary: 'List organization scopes (every one without page or page_size)',
    query: optionalSearchQuery,
    search: TEMPLATE_SEARCH_FIELDS,
    pagination: 'optional',
    response: z.array(organizationScope),
    async handler({ query, search, page, paged }) {
      return paged(await library.listScopes(page, query.q ?? search));
    },
  });

  declare(api, {
    method: 'post',
    path: '/organization-scopes',
    tag,
    summary: 'Create an organization scope',
    body: createOrganizationScopeBody,
    status: 201,
    response: organizationScope,
    handler: ({ body }) => library.createScope(body),
  });

  declare(api, {
    method: 'get',
    path: '/organization-scopes/:id',
    tag,
    summary: 'Get an organization scope',
    params: byId,
    response: organizationScope,
    handler: ({ params }) => library.mustFindScope(params.id),
  });

  declare(api, {
    method: 'patch',
    path: '/organization-scopes/:id',
    tag,
    refuseEmptyBody: true,
    summary: 'Update an organization scope',
    params: byId,
    body: updateOrganizationScopeBody,
    response: organizationScope,
    handler: ({ params, body }) => library.updateScope(params.id, body),
  });

  declare(api, {
    method: 'delete',
    path: '/organization-scopes/:id',
    tag,
    summary: 'Delete an organization scope, also from roles',
    params: byId,
    status: 204,
    async handler({ params }) {
      await library.deleteScope(params.id);
    },
  });
}
