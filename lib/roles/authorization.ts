import type { Repositories } from '../repositories.ts';
import { CONSOLE_ADMIN_ROLE_ID, MANAGEMENT_RESOURCE_ID } from '../bootstrap.ts';

/**
 * Which scopes of one API resource a principal may receive: the union of the scopes its roles grant on
 * that resource. Requested scopes are intersected with this set by the grants.
 */
export function createAuthorization(repositories: Pick<Repositories, 'roles' | 'resources'>) {
  async function scopesOfRoles(roleIds: string[], resourceId: string): Promise<string[]> {
    const scopeIds = await repositories.roles.scopeIdsOf(roleIds);
    const scopes = await repositories.resources.findScopesByIds(scopeIds);
    return scopes.filter((scope) => scope.resourceId === resourceId).map((scope) => scope.name);
  }

  return {
    async scopesForUser(userId: string, resourceId: string): Promise<string[]> {
      let roleIds = await repositories.roles.roleIdsOfUser(userId);
      // Only the console-admin role grants users management scopes, whatever older data put on other roles.
      if (resourceId === MANAGEMENT_RESOURCE_ID) roleIds = roleIds.filter((id) => id === CONSOLE_ADMIN_ROLE_ID);
      return scopesOfRoles(roleIds, resourceId);
    },
    async scopesForApplication(applicationId: string, resourceId: string): Promise<string[]> {
      return scopesOfRoles(await repositories.roles.roleIdsOfApplication(applicationId), resourceId);
    },
  };
}

export type Authorization = ReturnType<typeof createAuthorization>;
