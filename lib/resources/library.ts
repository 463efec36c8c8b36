import { errors, unique } from '../errors.ts';
import { newId } from '../ids.ts';
import type { ResourcesRepository } from './repository.ts';
import type { RolesRepository } from '../roles/repository.ts';
import type { Page, PageResult, SearchInput } from '../data/entity.ts';
import type { Resource, Scope } from './repository.ts';
import type { EmitData } from '../events/operation.ts';

export interface NewResource {
  name: string;
  indicator: string;
  accessTokenTtl?: number;
}

/**
 * API resource rules above storage: unique indicators and scope names, the built-in management API resource
 * that only its token lifetime may change on, one default resource at most, and the cascades of a delete
 * (its scopes, and those scopes on every role).
 */
export function createResourcesLibrary(
  deps: { resources: ResourcesRepository; roles: RolesRepository; emit: EmitData },
  options: { defaultAccessTokenTtl: number },
) {
  const { resources, roles } = deps;

  async function mustFind(id: string): Promise<Resource> {
    const found = await resources.findById(id);
    if (!found) throw errors.notFound('resource', id);
    return found;
  }

  async function assertNotBuiltIn(id: string): Promise<void> {
    if (await resources.isBuiltIn(id)) {
      throw errors.invalid(
        'resource.cannot_modify_management_api',
        'the management API resource cannot be changed here',
      );
    }
  }

  return {
    mustFind,
    /** A page of resources, each with its scopes when `includeScopes` (Logto's `GET /resources?includeScopes=true`). */
    async list(
      page: Page,
      search: SearchInput,
      includeScopes: boolean,
    ): Promise<PageResult<Resource & { scopes?: Scope[] }>> {
      const listed = await resources.list(page, search);
      if (!includeScopes) return listed;
      const scopes = await resources.scopesOfResources(listed.items.map((item) => item.id));
      const items = listed.items.map((item) => ({
        ...item,
        scopes: scopes.filter((scope) => scope.resourceId === item.id),
      }));
      return { items, total: listed.total };
    },
    /** A page of the resource's scopes. */
    async listScopes(resourceId: string, page: Page, search: SearchInput): Promise<PageResult<Scope>> {
      await mustFind(resourceId);
      return resources.listScopes(resourceId, page, search);
    },
    create: (input: NewResource) =>
      unique('resource', 'indicator', () =>
        resources.insert({
          id: newId(),
          name: input.name,
          indicator: input.indicator,
          isDefault: false,
          accessTokenTtl: input.accessTokenTtl ?? options.defaultAccessTokenTtl,
          createdAt: Date.now(),
        }),
      ),
    async update(id: string, changes: Partial<Pick<Resource, 'name' | 'accessTokenTtl'>>): Promise<Resource> {
      const current = await mustFind(id);
      if (changes.name !== undefined && changes.name !== current.name) await assertNotBuiltIn(id);
      return (await resources.update(id, changes)) ?? mustFind(id);
    },
    /** At most one resource is the default: making one the default clears the flag everywhere else. */
    async setDefault(id: string, isDefault: boolean): Promise<Resource> {
      const current = await mustFind(id);
      if (isDefault !== current.isDefault) await assertNotBuiltIn(id);
      const updated = (await resources.update(id, { isDefault })) ?? (await mustFind(id));
      if (isDefault) await resources.clearDefaultExcept(id);
      return updated;
    },
    /** Deletes the resource, its scopes, and those scopes on every role. */
    async delete(id: string): Promise<Resource> {
      await assertNotBuiltIn(id);
      await mustFind(id);
      // Children first: a failure midway leaves a resource that a retry deletes, never orphaned scopes.
      await roles.removeScopeEverywhere(await resources.scopeIdsOfResource(id));
      await resources.deleteScopesOf(id);
      const deleted = await resources.delete(id);
      if (!deleted) throw errors.notFound('resource', id);
      return deleted;
    },

    async createScope(resourceId: string, input: { name: string; description?: string | null }): Promise<Scope> {
      await mustFind(resourceId);
      await assertNotBuiltIn(resourceId);
      const created = await unique('scope', 'name', () =>
        resources.insertScope({
          id: newId(),
          resourceId,
          name: input.name,
          description: input.description ?? null,
          createdAt: Date.now(),
        }),
      );
      deps.emit('Scope.Created', { data: created });
      return created;
    },
    async updateScope(
      resourceId: string,
      scopeId: string,
      changes: Partial<Pick<Scope, 'name' | 'description'>>,
    ): Promise<Scope> {
      await assertNotBuiltIn(resourceId);
      const updated = await unique('scope', 'name', () => resources.updateScope(resourceId, scopeId, changes));
      if (!updated) throw errors.notFound('scope', scopeId);
      deps.emit('Scope.Data.Updated', { data: updated });
      return updated;
    },
    /** Deletes the scope and takes it off every role; returns the snapshot. */
    async deleteScope(resourceId: string, scopeId: string): Promise<Scope> {
      await assertNotBuiltIn(resourceId);
      const deleted = await resources.deleteScope(resourceId, scopeId);
      if (!deleted) throw errors.notFound('scope', scopeId);
      await roles.removeScopeEverywhere([deleted.id]);
      deps.emit('Scope.Deleted', { data: deleted });
      return deleted;
    },
  };
}
