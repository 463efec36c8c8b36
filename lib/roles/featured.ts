import type { ApplicationsRepository } from '../applications/repository.ts';
import type { RolesRepository } from './repository.ts';
import type { UsersRepository } from '../users/repository.ts';
import type { Role } from './repository.ts';

const FEATURED = 3;

/** Logto's role list fields: how many users and applications hold each role, and the first three of each. */
export async function withHolders(
  repositories: { roles: RolesRepository; users: UsersRepository; applications: ApplicationsRepository },
  listed: Role[],
) {
  return Promise.all(
    listed.map(async (role) => {
      const [userIds, applicationIds] = await Promise.all([
        repositories.roles.userIdsOfRole(role.id),
        repositories.roles.applicationIdsOfRole(role.id),
      ]);
      const [users, applications] = await Promise.all([
        repositories.users.findByIds(userIds.slice(0, FEATURED)),
        repositories.applications.findByIds(applicationIds.slice(0, FEATURED)),
      ]);
      return {
        ...role,
        usersCount: userIds.length,
        featuredUsers: users.map(({ id, avatar, name }) => ({ id, avatar, name })),
        applicationsCount: applicationIds.length,
        featuredApplications: applications.map(({ id, name, type }) => ({ id, name, type })),
      };
    }),
  );
}
