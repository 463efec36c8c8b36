import { z } from 'zod';
import type { OrganizationsRepository } from '../../lib/organizations/repository.ts';
import type { UsersRepository } from '../../lib/users/repository.ts';
import type { Organization } from '../../lib/organizations/repository.ts';
import { organization } from './schemas.ts';

const FEATURED = 3;

/** An organization as `GET /organizations?showFeatured=true` answers it (Logto's shape). */
export const featuredOrganization = organization.extend({
  usersCount: z.number().optional(),
  featuredUsers: z
    .array(z.object({ id: z.string(), avatar: z.string().nullable(), name: z.string().nullable() }))
    .optional(),
});

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
