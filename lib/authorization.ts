import type { Repositories } from './repositories/index.ts';

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
      return scopesOfRoles(await repositories.roles.roleIdsOfUser(userId), resourceId);
    },
    async scopesForApplication(applicationId: string, resourceId: string): Promise<string[]> {
      return scopesOfRoles(await repositories.roles.roleIdsOfApplication(applicationId), resourceId);
    },
  };
}

export type Authorization = ReturnType<typeof createAuthorization>;
