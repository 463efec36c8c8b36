import { z } from 'zod';
import { scopeSchema } from '../../lib/events/entity-schemas.ts';
import { optionalPagination, pagination } from '../../lib/http/api.ts';
import { scopeToken } from '../../lib/http/schemas.ts';
import { OIDC_SCOPES, ORGANIZATIONS_RESOURCE } from '../../lib/oidc/claims.ts';
import { LOGTO_MANAGEMENT_INDICATOR } from '../../lib/bootstrap.ts';

export const resource = z.object({
  id: z.string(),
  name: z.string(),
  indicator: z.string(),
  isDefault: z.boolean(),
  accessTokenTtl: z.number(),
  createdAt: z.number(),
});

export const scope = scopeSchema;

/** Indicators the service answers itself: Logto's organizations resource and its management API's fixed name. */
const RESERVED_INDICATORS: ReadonlySet<string> = new Set([ORGANIZATIONS_RESOURCE, LOGTO_MANAGEMENT_INDICATOR]);
const indicator = z
  .string()
  .max(2048)
  .refine((value) => URL.canParse(value), 'must be an absolute URI')
  .refine((value) => !value.includes('#'), 'must not contain a fragment')
  .refine((value) => !RESERVED_INDICATORS.has(value), 'is reserved by the service');
const ttl = z.number().int().min(60).max(86_400);
/**
 * OpenID Connect's scope names (the ones served here, and `address`, which is standard though not served): an API
 * scope named so would pass for the OIDC scope wherever only names are compared.
 */
const RESERVED_SCOPE_NAMES: ReadonlySet<string> = new Set([...OIDC_SCOPES, 'address']);

const scopeName = scopeToken.refine((value) => !RESERVED_SCOPE_NAMES.has(value), {
  message: `is reserved for OpenID Connect (${[...RESERVED_SCOPE_NAMES].join(', ')}) and cannot name an API scope`,
});

export const createResourceBody = z
  .object({
    name: z.string().trim().min(1).max(256),
    indicator,
    accessTokenTtl: ttl.optional(),
  })
  .strict();

export const updateResourceBody = z
  .object({
    name: z.string().trim().min(1).max(256).optional(),
    accessTokenTtl: ttl.optional(),
    indicator: z
      .string()
      .max(2048)
      .optional()
      .describe('Ignored, as in Logto: a resource keeps the indicator it was created with'),
  })
  .strict()
  .transform(({ indicator: _ignored, ...changes }) => changes);

export const isDefaultBody = z.object({ isDefault: z.boolean() }).strict();

export const createScopeBody = z
  .object({
    name: scopeName,
    description: z.string().max(2048).nullish(),
  })
  .strict();

export const updateScopeBody = z
  .object({
    name: scopeName.optional(),
    description: z.string().max(2048).nullish(),
  })
  .strict();

/** Logto's `includeScopes`: each resource carries its scopes. */
export const listResourcesQuery = optionalPagination.extend({
  includeScopes: z
    .enum(['true', 'false'])
    .optional()
    .transform((value) => value === 'true'),
});
export const listScopesQuery = pagination;

export const resourceWithScopes = resource.extend({ scopes: z.array(scope).optional() });

/** Fields `search` may name on resources (this service's addition) and on their scopes (Logto's). */
export const RESOURCE_SEARCH_FIELDS = ['name', 'indicator'] as const;
export const SCOPE_SEARCH_FIELDS = ['id', 'name', 'description'] as const;
