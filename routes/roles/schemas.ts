import { z } from 'zod';
import { searchablePagination } from '../../lib/http/api.ts';
import { ROLE_TYPES } from '../../lib/roles/repository.ts';

export const role = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  type: z.enum(ROLE_TYPES),
  isDefault: z.boolean(),
  createdAt: z.number(),
});

export const createRoleBody = z.object({
  name: z.string().trim().min(1).max(128),
  description: z.string().max(2048).default(''),
  type: z.enum(ROLE_TYPES).default('User'),
  isDefault: z.boolean().optional(),
  scopeIds: z.array(z.string().min(1).max(128)).max(500).optional(),
}).strict();

export const updateRoleBody = z.object({
  name: z.string().trim().min(1).max(128).optional(),
  description: z.string().max(2048).optional(),
  isDefault: z.boolean().optional(),
}).strict();

export const scopeIdsBody = z.object({ scopeIds: z.array(z.string().min(1).max(128)).min(1).max(500) }).strict();

export const listRolesQuery = searchablePagination.extend({ type: z.enum(ROLE_TYPES).optional() });
