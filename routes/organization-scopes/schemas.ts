import { z } from 'zod';
import { organizationScopeSchema } from '../../lib/events/entity-schemas.ts';
import { scopeToken } from '../../lib/http/schemas.ts';

export const organizationScope = organizationScopeSchema;

const name = scopeToken;

export const createOrganizationScopeBody = z.object({ name, description: z.string().max(2048).nullish() }).strict();
export const updateOrganizationScopeBody = z
  .object({
    name: name.optional(),
    description: z.string().max(2048).nullish(),
  })
  .strict();
