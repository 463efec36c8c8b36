import { z } from 'zod';
import { declare, idParam, optionalPagination, type ApiRouterDeps } from '../../lib/http/api.ts';
import type { ServiceCore } from '../../lib/core.ts';
import { presentSsoConnector, ssoConnectorResponse } from '../connectors/schemas.ts';

const tag = 'Organizations';
const byId = z.object({ id: idParam });
const ids = z.array(idParam).max(100);

/** Enterprise SSO connectors whose users join the organization just in time (Logto's `jit/sso-connectors`). */
export function organizationJitSsoRoutes(api: ApiRouterDeps, core: Pick<ServiceCore, 'organizations'>): void {
  const jit = core.organizations.jit;

  declare(api, {
    method: 'get',
    path: '/organizations/:id/jit/sso-connectors',
    tag,
    summary: 'List the enterprise SSO connectors whose users join just in time',
    params: byId,
    query: optionalPagination,
    pagination: 'optional',
    response: z.array(ssoConnectorResponse),
    async handler({ params, paged }) {
      const found = await jit.ssoConnectors(params.id);
      return paged(found.map(presentSsoConnector));
    },
  });

  declare(api, {
    method: 'post',
    path: '/organizations/:id/jit/sso-connectors',
    tag,
    summary: 'Add enterprise SSO connectors whose users join just in time, with the JIT default roles',
    params: byId,
    body: z.object({ ssoConnectorIds: ids.min(1) }).strict(),
    status: 201,
    response: z.object({ ssoConnectorIds: z.array(z.string()) }),
    async handler({ params, body }) {
      await jit.addSsoConnectors(params.id, body.ssoConnectorIds);
      return { ssoConnectorIds: [...new Set(body.ssoConnectorIds)] };
    },
  });

  declare(api, {
    method: 'put',
    path: '/organizations/:id/jit/sso-connectors',
    tag,
    summary: 'Replace the enterprise SSO connectors whose users join just in time',
    params: byId,
    body: z.object({ ssoConnectorIds: ids }).strict(),
    status: 204,
    handler: ({ params, body }) => jit.replaceSsoConnectors(params.id, body.ssoConnectorIds),
  });

  declare(api, {
    method: 'delete',
    path: '/organizations/:id/jit/sso-connectors/:ssoConnectorId',
    tag,
    summary: 'Stop just-in-time membership through an enterprise SSO connector',
    params: z.object({ id: idParam, ssoConnectorId: idParam }),
    status: 204,
    handler: ({ params }) => jit.removeSsoConnector(params.id, params.ssoConnectorId),
  });
}
