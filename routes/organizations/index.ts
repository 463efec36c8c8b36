import { z } from 'zod';
import { declare, idParam, type ApiRouterDeps } from '../../lib/http/api.ts';
import type { ServiceCore } from '../../lib/core.ts';
import { organizationApplicationRoleRoutes } from './application-roles.ts';
import { organizationJitRoutes } from './jit.ts';
import { organizationJitSsoRoutes } from './jit-sso.ts';
import { organizationMemberRoleRoutes } from './member-roles.ts';
import { organizationMemberRoutes } from './members.ts';
import {
  createOrganizationBody,
  featuredOrganization,
  listOrganizationsQuery,
  organization,
  TEMPLATE_SEARCH_FIELDS,
  updateOrganizationBody,
} from './schemas.ts';

const tag = 'Organizations';
const byId = z.object({ id: idParam });

export function organizationRoutes(api: ApiRouterDeps, core: Pick<ServiceCore, 'organizations'>): void {
  const library = core.organizations;

  declare(api, {
    method: 'get',
    path: '/organizations',
    tag,
    summary: 'List organizations (q searches id, name and description)',
    query: listOrganizationsQuery,
    search: TEMPLATE_SEARCH_FIELDS,
    response: z.array(featuredOrganization),
    async handler({ query, search, page, paged }) {
      return paged(await library.list(page, query.q ?? search, query.showFeatured === true));
    },
  });

  declare(api, {
    method: 'post',
    path: '/organizations',
    tag,
    summary: 'Create an organization',
    body: createOrganizationBody,
    status: 201,
    response: organization,
    handler: ({ body }) => library.create(body),
  });

  declare(api, {
    method: 'get',
    path: '/organizations/:id',
    tag,
    summary: 'Get an organization',
    params: byId,
    response: organization,
    handler: ({ params }) => library.mustFind(params.id),
  });

  declare(api, {
    method: 'patch',
    path: '/organizations/:id',
    tag,
    summary: 'Update an organization',
    refuseEmptyBody: true,
    params: byId,
    body: updateOrganizationBody,
    response: organization,
    handler: ({ params, body }) => library.update(params.id, body),
  });

  declare(api, {
    method: 'delete',
    path: '/organizations/:id',
    tag,
    summary: 'Delete an organization with its memberships and invitations',
    params: byId,
    status: 204,
    async handler({ params }) {
      await library.delete(params.id);
    },
  });

  organizationMemberRoutes(api, core);
  organizationMemberRoleRoutes(api, core);
  organizationApplicationRoleRoutes(api, core);
  organizationJitRoutes(api, core);
  organizationJitSsoRoutes(api, core);
}
