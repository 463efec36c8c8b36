import { z } from 'zod';
import { declare, idParam, pagination, type ApiRouterDeps } from '../../lib/http/api.ts';
import type { ServiceCore } from '../../lib/core.ts';
import { assertAllFound, errors, unique } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import type { EventState } from '../../lib/events/route-events.ts';
import type { Scope } from '../../lib/resources/repository.ts';
import type { Role } from '../../lib/roles/repository.ts';
import { BUILT_IN_ROLE_IDS, MANAGEMENT_RESOURCE_ID } from '../../lib/bootstrap.ts';
import { scope } from '../resources/schemas.ts';
import { createRoleBody, listRolesQuery, role, scopeIdsBody, updateRoleBody } from './schemas.ts';

const tag = 'Roles';
const byId = z.object({ id: idParam });

/** Role.Scopes.Updated carries the role's scopes after the change and the role's id, whatever the route. */
function announceScopes(events: EventState, roleId: string, scopes: Scope[] | false): void {
  events.events = { ...events.events, 'Role.Scopes.Updated': scopes && { data: scopes, fields: { roleId } } };
}

export function roleRoutes(api: ApiRouterDeps, core: ServiceCore): void {
  const { roles, resources } = core.repositories;

  async function mustFind(id: string) {
    const found = await roles.findById(id);
    if (!found) throw errors.notFound('role', id);
    return found;
  }

  async function scopesOf(roleId: string) {
    return resources.findScopesByIds(await roles.scopeIdsOf([roleId]));
  }

  /** The scopes must exist, and management scopes never go on a `User` role (users would reach /api). */
  async function assertScopesAssignable(type: Role['type'], scopeIds: string[]) {
    const found = await resources.findScopesByIds(scopeIds);
    assertAllFound('scope', scopeIds, found);
    if (type === 'User' && found.some((item) => item.resourceId === MANAGEMENT_RESOURCE_ID)) {
      throw errors.unprocessable(
        'role.management_api_scopes_not_assignable_to_user_role', 'management API scopes cannot be assigned to a user role',
      );
    }
  }

  function assertNotBuiltIn(id: string, change: string) {
    if (BUILT_IN_ROLE_IDS.has(id)) throw errors.unprocessable('role.protected', `the built-in role ${id} cannot ${change}`);
  }

  declare(api, {
    method: 'get', path: '/roles', tag, summary: 'List roles',
    query: listRolesQuery, response: z.array(role),
    async handler({ query, page, paged }) {
      return paged(await roles.list(
        page, { search: query.search, type: query.type },
      ));
    },
  });

  declare(api, {
    method: 'post', path: '/roles', tag, summary: 'Create a role (Role.Created; Role.Scopes.Updated when scopeIds is non-empty)',
    body: createRoleBody, status: 201, response: role,
    async handler({ body, events }) {
      const scopeIds = body.scopeIds ?? [];
      await assertScopesAssignable(body.type, scopeIds);
      const created = await unique('role', 'name', () => roles.insert({
        id: newId(), name: body.name, description: body.description, type: body.type,
        isDefault: body.isDefault ?? false, createdAt: Date.now(),
      }));
      if (scopeIds.length) await roles.addScopes(created.id, scopeIds);
      announceScopes(events, created.id, scopeIds.length > 0 && await scopesOf(created.id));
      return created;
    },
  });

  declare(api, {
    method: 'get', path: '/roles/:id', tag, summary: 'Get a role',
    params: byId, response: role,
    handler: ({ params }) => mustFind(params.id),
  });

  declare(api, {
    method: 'patch', path: '/roles/:id', tag, summary: 'Update a role (Role.Data.Updated)',
    params: byId, body: updateRoleBody, response: role,
    async handler({ params, body }) {
      const current = await mustFind(params.id);
      const renamed = body.name !== undefined && body.name !== current.name;
      const redefaulted = body.isDefault !== undefined && body.isDefault !== current.isDefault;
      if (renamed || redefaulted) assertNotBuiltIn(params.id, 'be renamed or made default; only its description can change');
      return (await unique('role', 'name', () => roles.update(params.id, body))) ?? mustFind(params.id);
    },
  });

  declare(api, {
    method: 'delete', path: '/roles/:id', tag, summary: 'Delete a role (Role.Deleted)',
    params: byId, status: 204,
    async handler({ params, events }) {
      assertNotBuiltIn(params.id, 'be deleted');
      const deleted = await roles.delete(params.id);
      if (!deleted) throw errors.notFound('role', params.id);
      events.snapshot = deleted;
    },
  });

  declare(api, {
    method: 'get', path: '/roles/:id/scopes', tag, summary: 'List the scopes of a role',
    params: byId, query: pagination, response: z.array(scope),
    async handler({ params, paged }) {
      await mustFind(params.id);
      const scopes = await scopesOf(params.id);
      return paged(scopes);
    },
  });

  declare(api, {
    method: 'post', path: '/roles/:id/scopes', tag, summary: 'Add scopes to a role (Role.Scopes.Updated)',
    params: byId, body: scopeIdsBody, status: 201, response: z.array(scope),
    async handler({ params, body, events }) {
      const current = await mustFind(params.id);
      assertNotBuiltIn(params.id, 'have its scopes changed');
      await assertScopesAssignable(current.type, body.scopeIds);
      await roles.addScopes(params.id, body.scopeIds);
      const scopes = await scopesOf(params.id);
      announceScopes(events, params.id, scopes);
      return scopes;
    },
  });

  declare(api, {
    method: 'delete', path: '/roles/:id/scopes/:scopeId', tag, summary: 'Remove a scope from a role (Role.Scopes.Updated)',
    params: z.object({ id: idParam, scopeId: idParam }), status: 204,
    async handler({ params, events }) {
      await mustFind(params.id);
      assertNotBuiltIn(params.id, 'have its scopes changed');
      if (!(await roles.removeScope(params.id, params.scopeId))) throw errors.notFound('role scope', params.scopeId);
      announceScopes(events, params.id, await scopesOf(params.id));
    },
  });
}
