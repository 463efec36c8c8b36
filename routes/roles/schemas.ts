import { z } from 'zod';
import { roleSchema } from '../../lib/events/entity-schemas.ts';
import { optionalPagination, pagination } from '../../lib/http/api.ts';
import { APPLICATION_TYPES } from '../../lib/applications/types.ts';
import { ROLE_TYPES } from '../../lib/roles/types.ts';

export const role = roleSchema;

export const createRoleBody = z
  .object({
    name: z.string().trim().min(1).max(128),
    description: z.string().max(2048).default(''),
    type: z.enum(ROLE_TYPES).default('User'),
    isDefault: z.boolean().optional(),
    scopeIds: z.array(z.string().min(1).max(128)).max(500).optional(),
  })
  .strict();

export const updateRoleBody = z
  .object({
    name: z.string().trim().min(1).max(128).optional(),
    description: z.string().max(2048).optional(),
    isDefault: z.boolean().optional(),
  })
  .strict();

export const scopeIdsBody = z.object({ scopeIds: z.array(z.string().min(1).max(128)).min(1).max(500) }).strict();

/** Logto's role search fields (`search.<field>`). */
export const ROLE_SEARCH_FIELDS = ['id', 'name', 'description'] as const;

/** Logto's `excludeUserId` / `excludeApplicationId`: roles the user / application does not hold. */
export const listRolesQuery = pagination.extend({
  type: z.enum(ROLE_TYPES).optional(),
  excludeUserId: z.string().min(1).max(128).optional(),
  excludeApplicationId: z.string().min(1).max(128).optional(),
});

export const roleScopesQuery = optionalPagination;
/** Logto's search fields on a role's scopes. */
export const ROLE_SCOPE_SEARCH_FIELDS = ['id', 'name', 'description'] as const;

/** A role in Logto's list shape: how many users and applications hold it, and up to three of each. */
export const listedRole = role.extend({
  usersCount: z.number(),
  featuredUsers: z.array(z.object({ id: z.string(), avatar: z.string().nullable(), name: z.string().nullable() })),
  applicationsCount: z.number(),
  featuredApplications: z.array(z.object({ id: z.string(), name: z.string(), type: z.enum(APPLICATION_TYPES) })),
});
