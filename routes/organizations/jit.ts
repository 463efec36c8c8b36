import { z } from 'zod';
import { declare, idParam, type ApiRouterDeps } from '../../lib/http/api.ts';
import type { ServiceCore } from '../../lib/core.ts';
import { addJitEmailDomainBody, emailDomain, jitEmailDomain, pageQuery, replaceJitEmailDomainsBody } from './schemas.ts';

const tag = 'Organizations';
const byId = z.object({ id: idParam });

/** Email domains whose users join the organization just in time, on sign-up or sign-in. */
export function organizationJitRoutes(api: ApiRouterDeps, core: ServiceCore): void {
  const library = core.libraries.organizations;

  declare(api, {
    method: 'get', path: '/organizations/:id/jit/email-domains', tag,
    summary: 'List just-in-time provisioning email domains',
    params: byId, query: pageQuery, response: z.array(jitEmailDomain),
    async handler({ params, page, paged }) {
      return paged(await library.jitEmailDomains(params.id, page));
    },
  });

  declare(api, {
    method: 'post', path: '/organizations/:id/jit/email-domains', tag,
    summary: 'Add a just-in-time provisioning email domain',
    params: byId, body: addJitEmailDomainBody, status: 201, response: jitEmailDomain,
    handler: ({ params, body }) => library.addJitEmailDomain(params.id, body.emailDomain),
  });

  declare(api, {
    method: 'put', path: '/organizations/:id/jit/email-domains', tag,
    summary: 'Replace the just-in-time provisioning email domains',
    params: byId, body: replaceJitEmailDomainsBody, status: 204,
    handler: ({ params, body }) => library.replaceJitEmailDomains(params.id, body.emailDomains),
  });

  declare(api, {
    method: 'delete', path: '/organizations/:id/jit/email-domains/:emailDomain', tag,
    summary: 'Remove a just-in-time provisioning email domain',
    params: z.object({ id: idParam, emailDomain }), status: 204,
    handler: ({ params }) => library.removeJitEmailDomain(params.id, params.emailDomain),
  });
}
