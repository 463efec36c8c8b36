import type { OrganizationRolesRepository } from '../organizations/roles-repository.ts';
import type { OrganizationScopesRepository } from '../organizations/scopes-repository.ts';
import type { OrganizationsRepository } from '../organizations/repository.ts';
import type { ResourcesRepository } from '../resources/repository.ts';
import type { RolesRepository } from './repository.ts';
import type { DocumentStore } from '../ports/documents.ts';
import { remembered } from '../data/remembered.ts';
import { CONSOLE_ADMIN_ROLE_ID, MANAGEMENT_RESOURCE_ID } from '../bootstrap.ts';
import type { OrganizationScope } from '../organizations/scopes-repository.ts';

type AuthorizationDeps = {
  roles: RolesRepository;
  resources: ResourcesRepository;
  organizations: OrganizationsRepository;
  organizationRoles: OrganizationRolesRepository;
  organizationScopes: OrganizationScopesRepository;
};

/**
 * Which scopes a principal may receive: on an API resource, the union of the scopes its roles grant there;
 * in an organization, the union of what its organization roles grant. Requested scopes are intersected with
 * these sets by the grants.
 */
export function createAuthorization(repositories: AuthorizationDeps, store: DocumentStore) {
  async function scopeNamesOn(scopeIds: string[], resourceId: string): Promise<string[]> {
    const scopes = await repositories.resources.findScopesByIds(scopeIds);
    return scopes.filter((scope) => scope.resourceId === resourceId).map((scope) => scope.name);
  }

  async function scopesOfRoles(roleIds: string[], resourceId: string): Promise<string[]> {
    return scopeNamesOn(await repositories.roles.scopeIdsOf(roleIds), resourceId);
  }

  const organizationRoleIdsOf = (organizationId: string, userId: string) =>
    repositories.organizations.userRoles.targetsOf({ organizationId, userId });
  const organizationRoleIdsOfApplication = (organizationId: string, applicationId: string) =>
    repositories.organizations.applicationRoles.targetsOf({ organizationId, applicationId });

  async function organizationScopesOfRoles(roleIds: string[]): Promise<OrganizationScope[]> {
    if (roleIds.length === 0) return [];
    const links = await repositories.organizationRoles.scopes.where({ organizationRoleId: roleIds });
    return repositories.organizationScopes.findByIds([...new Set(links.map((link) => link.organizationScopeId!))]);
  }

  // Asked on every token: remembered until a role assignment, a role's scopes or a scope changes (see remembered).
  return {
    /** The scope names these roles grant on a resource, whatever kind of principal holds them. */
    scopesOfRoles,
    scopesForUser: remembered(
      store,
      ['users_roles', 'roles_scopes', 'scopes'],
      async (userId: string, resourceId: string) => {
        let roleIds = await repositories.roles.roleIdsOfUser(userId);
        // Only the console-admin role grants users management scopes, whatever older data put on other roles.
        if (resourceId === MANAGEMENT_RESOURCE_ID) roleIds = roleIds.filter((id) => id === CONSOLE_ADMIN_ROLE_ID);
        return scopesOfRoles(roleIds, resourceId);
      },
    ),
    scopesForApplication: remembered(
      store,
      ['applications_roles', 'roles_scopes', 'scopes'],
      async (applicationId: string, resourceId: string) =>
        scopesOfRoles(await repositories.roles.roleIdsOfApplication(applicationId), resourceId),
    ),

    /** The organization scopes a member's organization roles grant in that organization. */
    async organizationScopesForUser(organizationId: string, userId: string): Promise<OrganizationScope[]> {
      return organizationScopesOfRoles(await organizationRoleIdsOf(organizationId, userId));
    },
    /** The organization scopes a member application's organization roles grant in that organization. */
    async organizationScopesForApplication(
      organizationId: string,
      applicationId: string,
    ): Promise<OrganizationScope[]> {
      return organizationScopesOfRoles(await organizationRoleIdsOfApplication(organizationId, applicationId));
    },
    /** A member application's scopes on an API resource inside one organization, as for a member user. */
    async scopesForOrganizationApplication(
      organizationId: string,
      applicationId: string,
      resourceId: string,
    ): Promise<string[]> {
      if (resourceId === MANAGEMENT_RESOURCE_ID) return [];
      const own = await repositories.roles.scopeIdsOf(await repositories.roles.roleIdsOfApplication(applicationId));
      const inherited = await repositories.roles.scopeIdsOfOrganizationRoles(
        await organizationRoleIdsOfApplication(organizationId, applicationId),
      );
      return [...new Set(await scopeNamesOn([...own, ...inherited], resourceId))];
    },
    /**
     * A member's scopes on an API resource inside one organization: those of the user's own roles plus the
     * resource scopes of the user's organization roles there. Never the management API's.
     */
    async scopesForOrganizationUser(organizationId: string, userId: string, resourceId: string): Promise<string[]> {
      if (resourceId === MANAGEMENT_RESOURCE_ID) return [];
      const own = await repositories.roles.scopeIdsOf(await repositories.roles.roleIdsOfUser(userId));
      const inherited = await repositories.roles.scopeIdsOfOrganizationRoles(
        await organizationRoleIdsOf(organizationId, userId),
      );
      return [...new Set(await scopeNamesOn([...own, ...inherited], resourceId))];
    },
  };
}

export type Authorization = ReturnType<typeof createAuthorization>;
