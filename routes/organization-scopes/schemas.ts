import { z } from 'zod';
import { scopeToken } from '../../lib/http/schemas.ts';

export const organizationScope = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  createdAt: z.number(),
});

const name = scopeToken;

export const createOrganizationScopeBody = z.object({ name, description: z.string().max(2048).nullish() }).strict();
export const updateOrganizationScopeBody = z.object({
  name: name.optional(), description: z.string().max(2048).nullish(),
}).strict();
