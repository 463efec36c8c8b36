import type { OrganizationsRepository } from './repository.ts';
import type { UsersRepository } from '../users/repository.ts';
import type { Organization } from './repository.ts';

const FEATURED = 3;

/** Logto's `showFeatured`: how many users each organization has, and the first three. */
export async function withFeaturedMembers(
  repositories: { organizations: OrganizationsRepository; users: UsersRepository },
  listed: Organization[],
) {
  return Promise.all(
    listed.map(async (entity) => {
      const userIds = await repositories.organizations.users.targetsOf({ organizationId: entity.id });
      const users = await repositories.users.findByIds(userIds.slice(0, FEATURED));
      return {
        ...entity,
        usersCount: userIds.length,
        featuredUsers: users.map(({ id, avatar, name }) => ({ id, avatar, name })),
      };
    }),
  );
}
