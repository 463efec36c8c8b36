import { z } from 'zod';

export const organizationScope = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  createdAt: z.number(),
});

/** Scope names travel in space-separated token claims, so they are OAuth scope tokens. */
const name = z.string().min(1).max(256)
  .regex(/^[\x21\x23-\x5B\x5D-\x7E]+$/, 'must be a valid OAuth scope token (no spaces or quotes)');

export const createOrganizationScopeBody = z.object({ name, description: z.string().max(2048).nullish() }).strict();
export const updateOrganizationScopeBody = z.object({
  name: name.optional(), description: z.string().max(2048).nullish(),
}).strict();
