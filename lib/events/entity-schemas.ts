import { z } from 'zod';
import { APPLICATION_TYPES } from '../applications/types.ts';
import { ORGANIZATION_ROLE_TYPES } from '../organizations/types.ts';
import { ROLE_TYPES } from '../roles/types.ts';

/**
 * The API shapes of the entities, as the management API answers them and data events carry them in `data`: the routes
 * check their responses against these, and the published event schemas (lib/events/schemas.ts) are built from them.
 */
export const userSchema = z.object({
  id: z.string(),
  username: z.string().nullable(),
  primaryEmail: z.string().nullable(),
  primaryPhone: z.string().nullable(),
  name: z.string().nullable(),
  avatar: z.string().nullable(),
  customData: z.record(z.string(), z.unknown()),
  identities: z.record(z.string(), z.unknown()),
  profile: z.record(z.string(), z.unknown()),
  applicationId: z.string().nullable(),
  isSuspended: z.boolean(),
  hasPassword: z.boolean(),
  lastSignInAt: z.number().nullable(),
  createdAt: z.number(),
  updatedAt: z.number(),
});

export const roleSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  type: z.enum(ROLE_TYPES),
  isDefault: z.boolean(),
  createdAt: z.number(),
});

export const scopeSchema = z.object({
  id: z.string(),
  resourceId: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  createdAt: z.number(),
});

export const organizationSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  customData: z.record(z.string(), z.unknown()),
  isMfaRequired: z.boolean(),
  color: z
    .object({ primaryColor: z.string(), isDarkModeEnabled: z.boolean(), darkPrimaryColor: z.string() })
    .partial()
    .optional(),
  branding: z.object({ logoUrl: z.string(), darkLogoUrl: z.string() }).partial().optional(),
  customCss: z.string().nullable().optional(),
  createdAt: z.number(),
});

export const organizationRoleSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  type: z.enum(ORGANIZATION_ROLE_TYPES),
  createdAt: z.number(),
});

export const organizationScopeSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  createdAt: z.number(),
});

/** The application an interaction event names. */
export const applicationSummarySchema = z.object({
  id: z.string(),
  type: z.enum(APPLICATION_TYPES),
  name: z.string(),
  description: z.string().nullable(),
});
