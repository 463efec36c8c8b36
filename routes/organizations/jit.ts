import { z } from 'zod';
import { declare, idParam, type ApiRouterDeps } from '../../lib/http/api.ts';
import type { ServiceCore } from '../../lib/core.ts';
import { organizationRole } from '../organization-roles/schemas.ts';
import {
  addJitEmailDomainBody,
  addMemberRolesBody,
  emailDomain,
  jitEmailDomain,
  optionalPageQuery,
  replaceJitEmailDomainsBody,
  replaceMemberRolesBody,
} from './schemas.ts';

const tag = 'Organizations';
const byId = z.object({ id: idParam });

/**
 * Just-in-time provisioning: email domains whose users join the organization on sign-up or first sign-in (with a
 * verified email), and the organization roles they get there.
 */
export function organizationJitRoutes(api: ApiRouterDeps, core: Pick<ServiceCore, 'organizations'>): void {
  const library = core.organizations;
  const jit = core.organizations.jit;

  declare(api, {
    method: 'get',
    path: '/organizations/:id/jit/email-domains',
    tag,
    summary: 'List just-in-time provisioning email domains',
    params: byId,
    query: optionalPageQuery,
    pagination: 'optional',
    response: z.array(jitEmailDomain),
    async handler({ params, page, paged }) {
      return paged(await library.jitEmailDomains(params.id, page));
    },
  });

  declare(api, {
    method: 'post',
    path: '/organizations/:id/jit/email-domains',
    tag,
    summary: 'Add a just-in-time provisioning email domain',
    params: byId,
    body: addJitEmailDomainBody,
    status: 201,
    response: jitEmailDomain,
    handler: ({ params, body }) => library.addJitEmailDomain(params.id, body.emailDomain),
  });

  declare(api, {
    method: 'put',
    path: '/organizations/:id/jit/email-domains',
    tag,
    summary: 'Replace the just-in-time provisioning email domains',
    params: byId,
    body: replaceJitEmailDomainsBody,
    status: 204,
    handler: ({ params, body }) => library.replaceJitEmailDomains(params.id, body.emailDomains),
  });

  declare(api, {
    method: 'delete',
    path: '/organizations/:id/jit/email-domains/:emailDomain',
    tag,
    summary: 'Remove a just-in-time provisioning email domain',
    params: z.object({ id: idParam, emailDomain }),
    status: 204,
    handler: ({ params }) => library.removeJitEmailDomain(params.id, params.emailDomain),
  });

  declare(api, {
    method: 'get',
    path: '/organizations/:id/jit/roles',
    tag,
    summary: 'List the organization roles users get when they join just in time',
    params: byId,
    query: optionalPageQuery,
    pagination: 'optional',
    response: z.array(organizationRole),
    async handler({ params, paged }) {
      return paged(await jit.roles(params.id));
    },
  });

  declare(api, {
    method: 'post',
    path: '/organizations/:id/jit/roles',
    tag,
    summary: 'Add just-in-time default organization roles (User roles only)',
    params: byId,
    body: addMemberRolesBody,
    status: 201,
    response: addMemberRolesBody,
    async handler({ params, body }) {
      await jit.addRoles(params.id, body.organizationRoleIds);
      return { organizationRoleIds: [...new Set(body.organizationRoleIds)] };
    },
  });

  declare(api, {
    method: 'put',
    path: '/organizations/:id/jit/roles',
    tag,
    summary: 'Replace the just-in-time default organization roles',
    params: byId,
    body: replaceMemberRolesBody,
    status: 204,
    handler: ({ params, body }) => jit.replaceRoles(params.id, body.organizationRoleIds),
  });

  declare(api, {
    method: 'delete',
    path: '/organizations/:id/jit/roles/:organizationRoleId',
    tag,
    summary: 'Remove a just-in-time default organization role',
    params: z.object({ id: idParam, organizationRoleId: idParam }),
    status: 204,
    handler: ({ params }) => jit.removeRole(params.id, params.organizationRoleId),
  });
}
