import { z } from 'zod';
import { declare, idParam, type ApiRouterDeps } from '../../lib/http/api.ts';
import type { ServiceCore } from '../../lib/core.ts';
import { errors, unique } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import {
  createResourceBody, createScopeBody, isDefaultBody, listQuery, resource, scope, updateResourceBody, updateScopeBody,
} from './schemas.ts';

const tag = 'API resources';
const byId = z.object({ id: idParam });
const byResource = z.object({ resourceId: idParam });
const byScope = z.object({ resourceId: idParam, scopeId: idParam });

export function resourceRoutes(api: ApiRouterDeps, core: ServiceCore): void {
  const { resources, roles } = core.repositories;

  async function mustFind(id: string) {
    const found = await resources.findById(id);
    if (!found) throw errors.notFound('resource', id);
    return found;
  }

  async function assertNotBuiltIn(id: string) {
    if (await resources.isBuiltIn(id)) {
      throw errors.unprocessable('resource.protected', 'the management API resource cannot be changed here');
    }
  }

  declare(api, {
    method: 'get', path: '/resources', tag, summary: 'List API resources',
    query: listQuery, response: z.array(resource),
    async handler({ query, page, paged }) {
      return paged(await resources.list(page, query.search));
    },
  });

  declare(api, {
    method: 'post', path: '/resources', tag, summary: 'Create an API resource',
    body: createResourceBody, status: 201, response: resource,
    handler: ({ body }) => unique('resource', 'indicator', () => resources.insert({
      id: newId(), name: body.name, indicator: body.indicator, isDefault: false,
      accessTokenTtl: body.accessTokenTtl ?? core.settings.ACCESS_TOKEN_TTL_SECONDS, createdAt: Date.now(),
    })),
  });

  declare(api, {
    method: 'get', path: '/resources/:id', tag, summary: 'Get an API resource',
    params: byId, response: resource,
    handler: ({ params }) => mustFind(params.id),
  });

  declare(api, {
    method: 'patch', path: '/resources/:id', tag, summary: 'Update an API resource',
    params: byId, body: updateResourceBody, response: resource,
    async handler({ params, body }) {
      const current = await mustFind(params.id);
      if (body.name !== undefined && body.name !== current.name) await assertNotBuiltIn(params.id);
      return (await resources.update(params.id, body)) ?? mustFind(params.id);
    },
  });

  declare(api, {
    method: 'patch', path: '/resources/:id/is-default', tag, summary: 'Make an API resource the default (or not)',
    params: byId, body: isDefaultBody, response: resource,
    async handler({ params, body }) {
      const current = await mustFind(params.id);
      if (body.isDefault !== current.isDefault) await assertNotBuiltIn(params.id);
      return (await resources.update(params.id, { isDefault: body.isDefault })) ?? mustFind(params.id);
    },
  });

  declare(api, {
    method: 'delete', path: '/resources/:id', tag, summary: 'Delete an API resource and its scopes',
    params: byId, status: 204,
    async handler({ params }) {
      await assertNotBuiltIn(params.id);
      const deleted = await resources.delete(params.id);
      if (!deleted) throw errors.notFound('resource', params.id);
      await roles.removeScopeEverywhere(deleted.scopeIds);
    },
  });

  declare(api, {
    method: 'get', path: '/resources/:resourceId/scopes', tag, summary: 'List the scopes of an API resource',
    params: byResource, query: listQuery, response: z.array(scope),
    async handler({ params, query, page, paged }) {
      await mustFind(params.resourceId);
      return paged(await resources.listScopes(
        params.resourceId, page, query.search,
      ));
    },
  });

  declare(api, {
    method: 'post', path: '/resources/:resourceId/scopes', tag, summary: 'Create a scope (Scope.Created)',
    params: byResource, body: createScopeBody, status: 201, response: scope,
    async handler({ params, body }) {
      await mustFind(params.resourceId);
      await assertNotBuiltIn(params.resourceId);
      return unique('scope', 'name', () => resources.insertScope({
        id: newId(), resourceId: params.resourceId, name: body.name, description: body.description ?? null,
        createdAt: Date.now(),
      }));
    },
  });

  declare(api, {
    method: 'patch', path: '/resources/:resourceId/scopes/:scopeId', tag, summary: 'Update a scope (Scope.Data.Updated)',
    params: byScope, body: updateScopeBody, response: scope,
    async handler({ params, body }) {
      await assertNotBuiltIn(params.resourceId);
      const updated = await unique('scope', 'name', () => resources.updateScope(params.resourceId, params.scopeId, body));
      if (!updated) throw errors.notFound('scope', params.scopeId);
      return updated;
    },
  });

  declare(api, {
    method: 'delete', path: '/resources/:resourceId/scopes/:scopeId', tag, summary: 'Delete a scope (Scope.Deleted)',
    params: byScope, status: 204,
    async handler({ params, events }) {
      await assertNotBuiltIn(params.resourceId);
      const deleted = await resources.deleteScope(params.resourceId, params.scopeId);
      if (!deleted) throw errors.notFound('scope', params.scopeId);
      await roles.removeScopeEverywhere([deleted.id]);
      events.snapshot = deleted;
    },
  });
}
