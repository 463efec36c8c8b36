import { assertAllFound, errors, unique } from '../errors.ts';
import { newId } from '../ids.ts';
import type { OrganizationRolesRepository } from './roles-repository.ts';
import type { OrganizationScopesRepository } from './scopes-repository.ts';
import type { OrganizationsRepository } from './repository.ts';
import type { ResourcesRepository } from '../resources/repository.ts';
import type { RolesRepository } from '../roles/repository.ts';
import type { Page, PageResult, SearchInput } from '../data/entity.ts';
import type { OrganizationRole } from './roles-repository.ts';
import type { OrganizationRoleType } from './types.ts';
import type { OrganizationScope } from './scopes-repository.ts';
import type { Scope } from '../resources/repository.ts';
import { MANAGEMENT_RESOURCE_ID } from '../bootstrap.ts';
import type { EmitData } from '../events/operation.ts';

export interface OrganizationRoleInput {
  name: string;
  description?: string | null;
  type?: OrganizationRoleType;
}

export interface OrganizationScopeInput {
  name: string;
  description?: string | null;
}

export type ScopeSummary = Pick<OrganizationScope, 'id' | 'name'>;

type TemplateDeps = {
  organizations: OrganizationsRepository;
  organizationRoles: OrganizationRolesRepository;
  organizationScopes: OrganizationScopesRepository;
  roles: RolesRepository;
  resources: ResourcesRepository;
  emit: EmitData;
};

/**
 * The organization template (Logto's term): organization roles and scopes, shared by every organization.
 * Deleting one also removes it from wherever it was linked.
 */
export function createOrganizationTemplateLibrary(deps: TemplateDeps) {
  const { organizations, organizationRoles, organizationScopes, emit } = deps;

  /** OrganizationRole.Scopes.Updated: the role's scopes (organization or API-resource ones) after the change. */
  function scopesChanged<T extends OrganizationScope[] | Scope[]>(organizationRoleId: string, scopes: T): T {
    emit('OrganizationRole.Scopes.Updated', { data: scopes, organizationRoleId });
    return scopes;
  }

  async function mustFindRole(id: string): Promise<OrganizationRole> {
    const role = await organizationRoles.findById(id);
    if (!role) throw errors.notFound('organization role', id);
    return role;
  }

  async function mustFindScope(id: string): Promise<OrganizationScope> {
    const scope = await organizationScopes.findById(id);
    if (!scope) throw errors.notFound('organization scope', id);
    return scope;
  }

  async function assertScopesExist(scopeIds: readonly string[]): Promise<void> {
    const found = await organizationScopes.findByIds([...new Set(scopeIds)]);
    assertAllFound('organization scope', scopeIds, found, { relation: true });
  }

  async function scopesOfRole(id: string): Promise<OrganizationScope[]> {
    return organizationScopes.findByIds(await organizationRoles.scopes.targetsOf({ organizationRoleId: id }));
  }

  /** API-resource scopes must exist, and never be the management API's: members would reach /api through them. */
  async function assertResourceScopesAssignable(scopeIds: readonly string[]): Promise<void> {
    const found = await deps.resources.findScopesByIds([...new Set(scopeIds)]);
    assertAllFound('scope', scopeIds, found, { relation: true });
    if (found.some((scope) => scope.resourceId === MANAGEMENT_RESOURCE_ID)) {
      throw errors.unprocessable(
        'organization_role.management_api_scopes_not_assignable',
        'management API scopes cannot be assigned to an organization role',
      );
    }
  }

  async function resourceScopesOfRole(id: string): Promise<Scope[]> {
    return deps.resources.findScopesByIds(
      await deps.roles.organizationRoleScopes.targetsOf({ organizationRoleId: id }),
    );
  }

  return {
    mustFindRole,
    /** Role ids from ids and Logto's `organizationRoleNames` (422 `organization.role_names_not_found` naming the unknown). */
    async resolveRoleIds(body: {
      organizationRoleIds?: string[];
      organizationRoleNames?: string[];
    }): Promise<string[]> {
      const names = [...new Set(body.organizationRoleNames ?? [])];
      const named =
        names.length === 0
          ? []
          : (
              await organizationRoles.list(
                { page: 1, pageSize: names.length },
                { matches: [{ field: 'name', mode: 'exact', values: names }], joint: 'or', isCaseSensitive: true },
              )
            ).items;
      const missing = names.filter((name) => !named.some((role) => role.name === name));
      if (missing.length) {
        const message = `no organization role named ${missing.join(', ')}`;
        throw errors.unprocessable('organization.role_names_not_found', message, { names: missing });
      }
      return [...new Set([...(body.organizationRoleIds ?? []), ...named.map((role) => role.id)])];
    },
    /** A page of organization scopes (Logto's `q` or the search parameters). */
    listScopes: (page: Page, search?: SearchInput) => organizationScopes.list(page, search),
    /** The role's API-resource scopes, each with the resource it belongs to (Logto's `resourceScopes`). */
    async resourceScopesWithResources(id: string) {
      const scopes = await resourceScopesOfRole(id);
      const resources = await deps.resources.findByIds([...new Set(scopes.map((scope) => scope.resourceId))]);
      return scopes.flatMap(({ id: scopeId, name, resourceId }) => {
        const resource = resources.find((candidate) => candidate.id === resourceId);
        return resource ? [{ id: scopeId, name, resource: { id: resource.id, name: resource.name } }] : [];
      });
    },
    mustFindScope,
    async listRoles(
      page: Page,
      search?: SearchInput,
    ): Promise<PageResult<OrganizationRole & { scopes: ScopeSummary[] }>> {
      const { items, total } = await organizationRoles.list(page, search);
      const links = await organizationRoles.scopes.where({ organizationRoleId: items.map((role) => role.id) });
      const scopes = await organizationScopes.findByIds([...new Set(links.map((link) => link.organizationScopeId!))]);
      const summaries = (roleId: string) =>
        scopes
          .filter((scope) =>
            links.some((link) => link.organizationRoleId === roleId && link.organizationScopeId === scope.id),
          )
          .map((scope) => ({ id: scope.id, name: scope.name }));
      return { items: items.map((role) => ({ ...role, scopes: summaries(role.id) })), total };
    },
    /** Creates the role and links the given scopes; all of them must exist. */
    async createRole(
      input: OrganizationRoleInput,
      organizationScopeIds: readonly string[],
      resourceScopeIds: readonly string[] = [],
    ): Promise<OrganizationRole> {
      await assertScopesExist(organizationScopeIds);
      await assertResourceScopesAssignable(resourceScopeIds);
      const role = await unique('organization role', 'name', () =>
        organizationRoles.insert({
          id: newId(),
          name: input.name,
          description: input.description ?? null,
          type: input.type ?? 'User',
          createdAt: Date.now(),
        }),
      );
      await organizationRoles.scopes.add({ organizationRoleId: role.id }, organizationScopeIds);
      await deps.roles.organizationRoleScopes.add({ organizationRoleId: role.id }, resourceScopeIds);
      emit('OrganizationRole.Created', { data: role });
      // The organization scopes when it was given some, else its API-resource scopes.
      if (organizationScopeIds.length > 0) scopesChanged(role.id, await scopesOfRole(role.id));
      else if (resourceScopeIds.length > 0) scopesChanged(role.id, await resourceScopesOfRole(role.id));
      return role;
    },
    async updateRole(id: string, changes: Partial<OrganizationRoleInput>): Promise<OrganizationRole> {
      await mustFindRole(id);
      const updated =
        (await unique('organization role', 'name', () => organizationRoles.update(id, changes))) ??
        (await mustFindRole(id));
      emit('OrganizationRole.Data.Updated', { data: updated });
      return updated;
    },
    async deleteRole(id: string): Promise<OrganizationRole> {
      await mustFindRole(id);
      // Children first: outside a transaction, a failure midway leaves the entity, which a retry deletes, never orphans.
      await organizationRoles.scopes.removeWhere({ organizationRoleId: id });
      await organizations.userRoles.removeWhere({ organizationRoleId: id });
      await organizations.applicationRoles.removeWhere({ organizationRoleId: id });
      await deps.roles.organizationRoleScopes.removeWhere({ organizationRoleId: id });
      await organizations.jitRoles.removeWhere({ organizationRoleId: id });
      const deleted = await organizationRoles.delete(id);
      if (!deleted) throw errors.notFound('organization role', id);
      emit('OrganizationRole.Deleted', { data: deleted });
      return deleted;
    },

    async scopesOfRole(id: string): Promise<OrganizationScope[]> {
      await mustFindRole(id);
      return scopesOfRole(id);
    },
    async addRoleScopes(id: string, scopeIds: readonly string[]): Promise<OrganizationScope[]> {
      await mustFindRole(id);
      await assertScopesExist(scopeIds);
      await organizationRoles.scopes.add({ organizationRoleId: id }, scopeIds);
      return scopesChanged(id, await scopesOfRole(id));
    },
    async replaceRoleScopes(id: string, scopeIds: readonly string[]): Promise<OrganizationScope[]> {
      await mustFindRole(id);
      await assertScopesExist(scopeIds);
      await organizationRoles.scopes.replace({ organizationRoleId: id }, scopeIds);
      return scopesChanged(id, await scopesOfRole(id));
    },
    async removeRoleScope(id: string, scopeId: string): Promise<OrganizationScope[]> {
      await mustFindRole(id);
      if (!(await organizationRoles.scopes.remove({ organizationRoleId: id }, scopeId))) {
        throw errors.notLinked('organization role scope', scopeId);
      }
      return scopesChanged(id, await scopesOfRole(id));
    },

    async resourceScopesOfRole(id: string): Promise<Scope[]> {
      await mustFindRole(id);
      return resourceScopesOfRole(id);
    },
    async addRoleResourceScopes(id: string, scopeIds: readonly string[]): Promise<Scope[]> {
      await mustFindRole(id);
      await assertResourceScopesAssignable(scopeIds);
      await deps.roles.organizationRoleScopes.add({ organizationRoleId: id }, scopeIds);
      return scopesChanged(id, await resourceScopesOfRole(id));
    },
    async replaceRoleResourceScopes(id: string, scopeIds: readonly string[]): Promise<Scope[]> {
      await mustFindRole(id);
      await assertResourceScopesAssignable(scopeIds);
      await deps.roles.organizationRoleScopes.replace({ organizationRoleId: id }, scopeIds);
      return scopesChanged(id, await resourceScopesOfRole(id));
    },
    async removeRoleResourceScope(id: string, scopeId: string): Promise<Scope[]> {
      await mustFindRole(id);
      if (!(await deps.roles.organizationRoleScopes.remove({ organizationRoleId: id }, scopeId))) {
        throw errors.notLinked('organization role resource scope', scopeId);
      }
      return scopesChanged(id, await resourceScopesOfRole(id));
    },

    async createScope(input: OrganizationScopeInput): Promise<OrganizationScope> {
      const created = await unique('organization scope', 'name', () =>
        organizationScopes.insert({
          id: newId(),
          name: input.name,
          description: input.description ?? null,
          createdAt: Date.now(),
        }),
      );
      emit('OrganizationScope.Created', { data: created });
      return created;
    },
    async updateScope(id: string, changes: Partial<OrganizationScopeInput>): Promise<OrganizationScope> {
      await mustFindScope(id);
      const updated =
        (await unique('organization scope', 'name', () => organizationScopes.update(id, changes))) ??
        (await mustFindScope(id));
      emit('OrganizationScope.Data.Updated', { data: updated });
      return updated;
    },
    async deleteScope(id: string): Promise<OrganizationScope> {
      const deleted = await organizationScopes.delete(id);
      if (!deleted) throw errors.notFound('organization scope', id);
      await organizationRoles.scopes.removeWhere({ organizationScopeId: id });
      emit('OrganizationScope.Deleted', { data: deleted });
      return deleted;
    },
  };
}

export type OrganizationTemplateLibrary = ReturnType<typeof createOrganizationTemplateLibrary>;
