import { z } from 'zod';
import { organizationRoleSchema } from '../../lib/events/entity-schemas.ts';
import { ORGANIZATION_ROLE_TYPES } from '../../lib/organizations/types.ts';

export const organizationRole = organizationRoleSchema;

export const organizationRoleWithScopes = organizationRole.extend({
  scopes: z.array(z.object({ id: z.string(), name: z.string() })),
  resourceScopes: z
    .array(
      z.object({
        id: z.string(),
        name: z.string(),
        resource: z.object({ id: z.string(), name: z.string() }),
      }),
    )
    .describe("Logto's list shape: the role's API-resource scopes, each with its resource"),
});

const scopeIds = z.array(z.string().min(1).max(128)).max(500);

export const createOrganizationRoleBody = z
  .object({
    name: z.string().trim().min(1).max(128),
    description: z.string().max(2048).nullish(),
    type: z.enum(ORGANIZATION_ROLE_TYPES).optional(),
    organizationScopeIds: scopeIds.optional(),
    resourceScopeIds: scopeIds.optional(),
  })
  .strict();

export const updateOrganizationRoleBody = z
  .object({
    name: z.string().trim().min(1).max(128).optional(),
    description: z.string().max(2048).nullish(),
  })
  .strict();

export const addScopesBody = z.object({ organizationScopeIds: scopeIds.min(1) }).strict();
export const replaceScopesBody = z.object({ organizationScopeIds: scopeIds }).strict();
export const addResourceScopesBody = z.object({ scopeIds: scopeIds.min(1) }).strict();
export const replaceResourceScopesBody = z.object({ scopeIds }).strict();
