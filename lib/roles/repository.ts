import type { DocumentStore, Filter } from '../ports/documents.ts';
import { createEntityRepository, type Page, type PageResult, type SearchInput } from '../data/entity.ts';
import { createLinks } from '../data/links.ts';
import type { RoleType } from './types.ts';

export interface Role {
  id: string;
  name: string;
  description: string;
  type: RoleType;
  isDefault: boolean;
  createdAt: number;
}

/** Roles, their scopes, and who holds them (users and M2M applications). */
export function createRolesRepository(store: DocumentStore) {
  const { collection, present, operations } = createEntityRepository<Role>(store, 'roles', {
    searchFields: ['id', 'name', 'description'],
  });
  const roleScopes = createLinks(store, 'roles_scopes', ['roleId'], 'scopeId');
  const userRoles = createLinks(store, 'users_roles', ['userId'], 'roleId');
  const applicationRoles = createLinks(store, 'applications_roles', ['applicationId'], 'roleId');
  // API-resource scopes of organization roles live beside those of roles, so removing a scope reaches both.
  const organizationRoleScopes = createLinks(
    store,
    'organization_roles_resource_scopes',
    ['organizationRoleId'],
    'scopeId',
  );

  return {
    ...operations,
    async prepare() {
      await collection.createIndex({ keys: { name: 1 }, unique: true });
      for (const links of [roleScopes, userRoles, applicationRoles, organizationRoleScopes]) await links.prepare();
    },
    list(
      page: Page,
      filter: { search?: SearchInput; type?: RoleType; excludeIds?: string[]; ids?: string[] },
    ): Promise<PageResult<Role>> {
      const query: Filter = {};
      if (filter.type) query.type = filter.type;
      if (filter.ids) query._id = { $in: filter.ids };
      else if (filter.excludeIds?.length) query._id = { $nin: filter.excludeIds };
      return operations.list(page, filter.search, query);
    },
    async defaults(type: RoleType): Promise<Role[]> {
      return (await collection.find({ isDefault: true, type })).map(present);
    },
    /** Forgets the role everywhere it is linked: its scopes and whoever held it. */
    async removeLinksOf(roleId: string): Promise<void> {
      await Promise.all([
        roleScopes.removeWhere({ roleId }),
        userRoles.removeWhere({ roleId }),
        applicationRoles.removeWhere({ roleId }),
      ]);
    },

    async scopeIdsOf(roleIds: string[]): Promise<string[]> {
      if (roleIds.length === 0) return [];
      return [...new Set((await roleScopes.where({ roleId: roleIds })).map((link) => link.scopeId!))];
    },
    /** Adds scopes to a role; returns the ids that were not linked before. */
    addScopes: (roleId: string, scopeIds: string[]) => roleScopes.add({ roleId }, scopeIds),
    removeScope: (roleId: string, scopeId: string) => roleScopes.remove({ roleId }, scopeId),
    async removeScopeEverywhere(scopeIds: string[]): Promise<void> {
      if (scopeIds.length === 0) return;
      await roleScopes.removeWhere({ scopeId: scopeIds });
      await organizationRoleScopes.removeWhere({ scopeId: scopeIds });
    },
    /** API-resource scopes of organization roles. */
    organizationRoleScopes,
    async scopeIdsOfOrganizationRoles(organizationRoleIds: string[]): Promise<string[]> {
      if (organizationRoleIds.length === 0) return [];
      const links = await organizationRoleScopes.where({ organizationRoleId: organizationRoleIds });
      return [...new Set(links.map((link) => link.scopeId!))];
    },

    roleIdsOfUser: (userId: string) => userRoles.targetsOf({ userId }),
    async userIdsOfRole(roleId: string): Promise<string[]> {
      return (await userRoles.where({ roleId })).map((link) => link.userId!);
    },
    async applicationIdsOfRole(roleId: string): Promise<string[]> {
      return (await applicationRoles.where({ roleId })).map((link) => link.applicationId!);
    },
    /** Assigns roles to a user; returns the ids the user did not hold before. */
    assignToUser: (userId: string, roleIds: string[]) => userRoles.add({ userId }, roleIds),
    removeFromUser: (userId: string, roleId: string) => userRoles.remove({ userId }, roleId),
    async removeAllOfUser(userId: string): Promise<void> {
      await userRoles.removeWhere({ userId });
    },

    roleIdsOfApplication: (applicationId: string) => applicationRoles.targetsOf({ applicationId }),
    assignToApplication: (applicationId: string, roleIds: string[]) => applicationRoles.add({ applicationId }, roleIds),
    removeFromApplication: (applicationId: string, roleId: string) =>
      applicationRoles.remove({ applicationId }, roleId),
    async removeAllOfApplication(applicationId: string): Promise<void> {
      await applicationRoles.removeWhere({ applicationId });
    },
  };
}

export type RolesRepository = ReturnType<typeof createRolesRepository>;
