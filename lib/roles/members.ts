import { assertAllFound, errors } from '../errors.ts';
import type { Repositories } from '../repositories.ts';
import type { Page, PageResult } from '../data/entity.ts';
import type { Application } from '../applications/repository.ts';
import type { User } from '../users/repository.ts';
import type { Role } from './repository.ts';

type MembersDeps = Pick<Repositories, 'roles' | 'users' | 'applications'>;

/**
 * A role's holders, seen from the role: users hold `User` roles, MachineToMachine applications hold
 * `MachineToMachine` roles. The same links as `/users/:id/roles` and `/applications/:id/roles`; no event.
 */
export function createRoleMembers(deps: MembersDeps, mustFind: (id: string) => Promise<Role>) {
  const { roles, users, applications } = deps;

  async function roleOfType(id: string, type: Role['type']): Promise<Role> {
    const role = await mustFind(id);
    if (role.type !== type) {
      throw type === 'User'
        ? errors.unprocessable('user.role_type_mismatch', 'only User roles can be assigned to users')
        : errors.unprocessable('application.role_type_mismatch', 'only MachineToMachine roles can be assigned to applications');
    }
    return role;
  }

  async function page<T>(ids: string[], current: Page, find: (id: string) => Promise<T | null>): Promise<PageResult<T>> {
    const items: T[] = [];
    for (const id of ids.slice((current.page - 1) * current.pageSize, current.page * current.pageSize)) {
      const found = await find(id);
      if (found) items.push(found);
    }
    return { items, total: ids.length };
  }

  return {
    async usersOf(id: string, current: Page): Promise<PageResult<User>> {
      await mustFind(id);
      return page(await roles.userIdsOfRole(id), current, (userId) => users.findById(userId));
    },
    async assignUsers(id: string, userIds: readonly string[]): Promise<void> {
      await roleOfType(id, 'User');
      assertAllFound('user', userIds, await users.findByIds([...new Set(userIds)]));
      for (const userId of new Set(userIds)) await roles.assignToUser(userId, [id]);
    },
    async removeUser(id: string, userId: string): Promise<void> {
      await mustFind(id);
      if (!(await roles.removeFromUser(userId, id))) throw errors.notFound('role assignment', userId);
    },

    async applicationsOf(id: string, current: Page): Promise<PageResult<Application>> {
      await mustFind(id);
      return page(await roles.applicationIdsOfRole(id), current, (applicationId) => applications.findById(applicationId));
    },
    async assignApplications(id: string, applicationIds: readonly string[]): Promise<void> {
      await roleOfType(id, 'MachineToMachine');
      const found: Application[] = [];
      for (const applicationId of new Set(applicationIds)) {
        const app = await applications.findById(applicationId);
        if (app) found.push(app);
      }
      assertAllFound('application', applicationIds, found);
      if (found.some((app) => app.type !== 'MachineToMachine')) {
        throw errors.unprocessable('application.role_type_mismatch', 'only MachineToMachine applications can hold roles');
      }
      for (const app of found) await roles.assignToApplication(app.id, [id]);
    },
    async removeApplication(id: string, applicationId: string): Promise<void> {
      await mustFind(id);
      if (!(await roles.removeFromApplication(applicationId, id))) throw errors.notFound('role assignment', applicationId);
    },
  };
}
