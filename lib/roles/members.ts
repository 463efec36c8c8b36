import { assertAllFound, errors } from '../errors.ts';
import type { ApplicationsRepository } from '../applications/repository.ts';
import type { RolesRepository } from './repository.ts';
import type { UsersRepository } from '../users/repository.ts';
import type { Page, PageResult, SearchInput } from '../data/entity.ts';
import type { Application } from '../applications/repository.ts';
import type { User } from '../users/repository.ts';
import type { Role } from './repository.ts';

type MembersDeps = { roles: RolesRepository; users: UsersRepository; applications: ApplicationsRepository };

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
        ? errors.unprocessable('user.invalid_role_type', 'only User roles can be assigned to users')
        : errors.unprocessable(
            'application.invalid_role_type',
            'only MachineToMachine roles can be assigned to applications',
          );
    }
    return role;
  }

  /** Logto's `POST /roles/:id/users|applications`: a holder the role already has is 422, nothing assigned. */
  function assertNoneHeld(
    held: readonly string[],
    wanted: readonly string[],
    code: 'role.user_exists' | 'role.application_exists',
  ): void {
    const holding = new Set(held);
    const already = wanted.find((holder) => holding.has(holder));
    if (already) throw errors.unprocessable(code, `the role is already assigned to ${already}`, { id: already });
  }

  return {
    /** The role's users, searched as `GET /users` searches. */
    async usersOf(id: string, current: Page, search?: SearchInput): Promise<PageResult<User>> {
      await mustFind(id);
      return users.list(current, { search, ids: await roles.userIdsOfRole(id) });
    },
    async assignUsers(id: string, userIds: readonly string[]): Promise<void> {
      await roleOfType(id, 'User');
      assertNoneHeld(await roles.userIdsOfRole(id), userIds, 'role.user_exists');
      assertAllFound('user', userIds, await users.findByIds([...new Set(userIds)]));
      for (const userId of new Set(userIds)) await roles.assignToUser(userId, [id]);
    },
    async removeUser(id: string, userId: string): Promise<void> {
      await mustFind(id);
      if (!(await roles.removeFromUser(userId, id))) throw errors.notLinked('role assignment', userId);
    },

    /** The role's applications, searched as `GET /applications` searches. */
    async applicationsOf(id: string, current: Page, search?: SearchInput): Promise<PageResult<Application>> {
      await mustFind(id);
      return applications.list(current, { search, ids: await roles.applicationIdsOfRole(id) });
    },
    async assignApplications(id: string, applicationIds: readonly string[]): Promise<void> {
      await roleOfType(id, 'MachineToMachine');
      assertNoneHeld(await roles.applicationIdsOfRole(id), applicationIds, 'role.application_exists');
      const found: Application[] = [];
      for (const applicationId of new Set(applicationIds)) {
        const app = await applications.findById(applicationId);
        if (app) found.push(app);
      }
      assertAllFound('application', applicationIds, found);
      if (found.some((app) => app.type !== 'MachineToMachine')) {
        throw errors.unprocessable('application.invalid_type', 'only MachineToMachine applications can hold roles');
      }
      for (const app of found) await roles.assignToApplication(app.id, [id]);
    },
    async removeApplication(id: string, applicationId: string): Promise<void> {
      await mustFind(id);
      if (!(await roles.removeFromApplication(applicationId, id)))
        throw errors.notLinked('role assignment', applicationId);
    },
  };
}
