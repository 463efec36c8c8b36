import { assertAllFound, errors, unique } from '../errors.ts';
import { newId } from '../ids.ts';
import { BUILT_IN_ROLE_IDS, MANAGEMENT_RESOURCE_ID } from '../bootstrap.ts';
import type { ApplicationsRepository } from '../applications/repository.ts';
import type { ResourcesRepository } from '../resources/repository.ts';
import type { RolesRepository } from './repository.ts';
import type { UsersRepository } from '../users/repository.ts';
import type { Scope } from '../resources/repository.ts';
import type { Role } from './repository.ts';
import type { RoleType } from './types.ts';
import { createRoleMembers } from './members.ts';
import type { EmitData } from '../events/operation.ts';
import { withHolders } from './featured.ts';
import type { Page, PageResult, SearchInput } from '../data/entity.ts';

export interface NewRole {
  name: string;
  description: string;
  type: RoleType;
  isDefault?: boolean;
}

/**
 * Role rules above storage: unique names, the built-in roles that cannot change, and the rule that keeps
 * management API scopes off `User` roles (their holders would reach /api through sign-in or impersonation).
 */
export function createRolesLibrary(deps: {
  emit: EmitData;
  roles: RolesRepository;
  resources: ResourcesRepository;
  users: UsersRepository;
  applications: ApplicationsRepository;
}) {
  const { roles, resources, emit } = deps;

  /** Role.Scopes.Updated: the role's scopes after the change. */
  function scopesChanged(roleId: string, scopes: Scope[]): Scope[] {
    emit('Role.Scopes.Updated', { data: scopes, roleId });
    return scopes;
  }

  async function mustFind(id: string): Promise<Role> {
    const found = await roles.findById(id);
    if (!found) throw errors.notFound('role', id);
    return found;
  }

  async function scopesOf(roleId: string): Promise<Scope[]> {
    return resources.findScopesByIds(await roles.scopeIdsOf([roleId]));
  }

  async function assertScopesAssignable(type: RoleType, scopeIds: readonly string[]): Promise<void> {
    const found = await resources.findScopesByIds([...scopeIds]);
    assertAllFound('scope', scopeIds, found);
    if (type === 'User' && found.some((item) => item.resourceId === MANAGEMENT_RESOURCE_ID)) {
      throw errors.invalid(
        'role.management_api_scopes_not_assignable_to_user_role',
        'management API scopes cannot be assigned to a user role',
      );
    }
  }

  function assertNotBuiltIn(id: string, change: string): void {
    if (BUILT_IN_ROLE_IDS.has(id))
      throw errors.unprocessable('role.protected', `the built-in role ${id} cannot ${change}`);
  }

  return {
    ...createRoleMembers(deps, mustFind),
    mustFind,
    /**
     * Logto's role list: leaving out the roles a user or an application holds, each role with how many users and
     * applications hold it and the first of each.
     */
    async list(
      page: Page,
      filter: { search: SearchInput; type?: RoleType; excludeUserId?: string; excludeApplicationId?: string },
    ) {
      const excludeIds = [
        ...(filter.excludeUserId ? await roles.roleIdsOfUser(filter.excludeUserId) : []),
        ...(filter.excludeApplicationId ? await roles.roleIdsOfApplication(filter.excludeApplicationId) : []),
      ];
      const { items, total } = await roles.list(page, { search: filter.search, type: filter.type, excludeIds });
      return { items: await withHolders(deps, items), total };
    },
    /** A page of the role's scopes. */
    async listScopes(id: string, page: Page, search: SearchInput): Promise<PageResult<Scope>> {
      await mustFind(id);
      return resources.listScopesAmong(await roles.scopeIdsOf([id]), page, search);
    },
    scopesOf,
    /** Creates the role with its scopes; the scopes it was created with (empty when none). */
    async create(input: NewRole, scopeIds: readonly string[]): Promise<{ role: Role; scopes: Scope[] }> {
      await assertScopesAssignable(input.type, scopeIds);
      const role = await unique('role', 'name', () =>
        roles.insert({
          id: newId(),
          name: input.name,
          description: input.description,
          type: input.type,
          isDefault: input.isDefault ?? false,
          createdAt: Date.now(),
        }),
      );
      emit('Role.Created', { data: role });
      if (scopeIds.length === 0) return { role, scopes: [] };
      await roles.addScopes(role.id, [...scopeIds]);
      return { role, scopes: scopesChanged(role.id, await scopesOf(role.id)) };
    },
    async update(id: string, changes: Partial<Pick<Role, 'name' | 'description' | 'isDefault'>>): Promise<Role> {
      const current = await mustFind(id);
      const renamed = changes.name !== undefined && changes.name !== current.name;
      const redefaulted = changes.isDefault !== undefined && changes.isDefault !== current.isDefault;
      if (renamed || redefaulted) assertNotBuiltIn(id, 'be renamed or made default; only its description can change');
      const updated = (await unique('role', 'name', () => roles.update(id, changes))) ?? (await mustFind(id));
      emit('Role.Data.Updated', { data: updated });
      return updated;
    },
    /** Deletes the role and every link to it (its scopes, its users and applications); returns the snapshot. */
    async delete(id: string): Promise<Role> {
      assertNotBuiltIn(id, 'be deleted');
      await mustFind(id);
      // Children first: outside a transaction, a failure midway leaves the entity, which a retry deletes, never orphans.
      await roles.removeLinksOf(id);
      const deleted = await roles.delete(id);
      if (!deleted) throw errors.notFound('role', id);
      emit('Role.Deleted', { data: deleted });
      return deleted;
    },
    /** Adds scopes; the role's scopes after the change. */
    async addScopes(id: string, scopeIds: readonly string[]): Promise<Scope[]> {
      const current = await mustFind(id);
      assertNotBuiltIn(id, 'have its scopes changed');
      const held = new Set(await roles.scopeIdsOf([id]));
      const already = scopeIds.find((scopeId) => held.has(scopeId));
      if (already)
        throw errors.unprocessable('role.scope_exists', `the role already has scope ${already}`, { scopeId: already });
      await assertScopesAssignable(current.type, scopeIds);
      await roles.addScopes(id, [...scopeIds]);
      return scopesChanged(id, await scopesOf(id));
    },
    /** Removes one scope; the role's scopes after the change. */
    async removeScope(id: string, scopeId: string): Promise<Scope[]> {
      await mustFind(id);
      assertNotBuiltIn(id, 'have its scopes changed');
      if (!(await roles.removeScope(id, scopeId))) throw errors.notLinked('role scope', scopeId);
      return scopesChanged(id, await scopesOf(id));
    },
  };
}
