import { z } from 'zod';
import { optionalPagination } from '../../lib/http/api.ts';
import { APPLICATION_TYPES, type ApplicationType } from '../../lib/applications/types.ts';
import { MAX_REFRESH_TOKEN_TTL_DAYS, originProblem, redirectUriProblem } from '../../lib/applications/clients.ts';

const redirectUri = z
  .string()
  .max(2048)
  .refine((value) => URL.canParse(value), 'must be an absolute URI');

/** The redirect URIs oidc-provider would refuse for this type of application, each with its path and reason. */
export function redirectUriIssues(
  type: ApplicationType,
  metadata: { redirectUris?: string[]; postLogoutRedirectUris?: string[] },
): Array<{ path: Array<string | number>; message: string }> {
  const issues: Array<{ path: Array<string | number>; message: string }> = [];
  for (const field of ['redirectUris', 'postLogoutRedirectUris'] as const) {
    metadata[field]?.forEach((uri, index) => {
      const problem = redirectUriProblem(type, uri);
      if (problem)
        issues.push({ path: ['oidcClientMetadata', field, index], message: `${problem} (${type} application)` });
    });
  }
  return issues;
}

const logoUri = z
  .string()
  .max(2048)
  .refine((value) => /^https?:$/.test(URL.parse(value)?.protocol ?? ''), 'must be an absolute http(s) URL');

const redirectUris = z.array(redirectUri).max(100);
const logo = logoUri.nullable().optional().describe('Logo shown on the sign-in pages; null removes it');

export const oidcClientMetadata = z
  .object({
    redirectUris: redirectUris.default([]),
    postLogoutRedirectUris: redirectUris.default([]),
    logoUri: logo,
  })
  .strict();

/** A change names only what it changes: a field left out keeps its value (no defaults here). */
const oidcClientMetadataChange = z
  .object({
    redirectUris: redirectUris.optional(),
    postLogoutRedirectUris: redirectUris.optional(),
    logoUri: logo,
  })
  .strict();

const origin = z
  .string()
  .max(2048)
  .superRefine((value, ctx) => {
    const problem = originProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

export const customClientMetadata = z
  .object({
    allowTokenExchange: z.boolean().optional(),
    maxAllowedGrants: z.number().int().min(1).max(10_000).optional(),
    corsAllowedOrigins: z
      .array(origin)
      .max(100)
      .optional()
      .describe(
        'Browser origins that may call the token, userinfo, revocation and introspection endpoints for this application',
      ),
    idTokenTtl: z
      .number()
      .int()
      .min(60)
      .max(86_400)
      .optional()
      .describe('ID token lifetime, seconds (default 3600); not for MachineToMachine applications'),
    refreshTokenTtlInDays: z
      .number()
      .int()
      .min(1)
      .max(MAX_REFRESH_TOKEN_TTL_DAYS)
      .optional()
      .describe('Refresh token lifetime, days (default 14); not for MachineToMachine applications'),
    refreshTokenTtl: z
      .number()
      .int()
      .min(1)
      .max(MAX_REFRESH_TOKEN_TTL_DAYS * 86_400)
      .optional()
      .describe("Refresh token lifetime, seconds (Logto's older key); refreshTokenTtlInDays wins when both are set"),
    rotateRefreshToken: z
      .boolean()
      .optional()
      .describe(
        'true (default) renews a refresh token on use: on every use for SPA and Native, once 70% of its ' +
          'life has passed for Traditional; false (Traditional only) keeps it until it expires',
      ),
    alwaysIssueRefreshToken: z
      .boolean()
      .optional()
      .describe('Issue a refresh token without the offline_access scope; not for MachineToMachine applications'),
  })
  .strict();

export const applicationType = z.enum(APPLICATION_TYPES);

export const application = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  type: applicationType,
  oidcClientMetadata: z.object({
    redirectUris: z.array(z.string()),
    postLogoutRedirectUris: z.array(z.string()),
    logoUri: z.string().optional(),
  }),
  customClientMetadata: customClientMetadata,
  isThirdParty: z.boolean(),
  createdAt: z.number(),
});

export const applicationWithSecret = application.extend({
  secret: z.string().describe('Shown only in this response; store it now.'),
});

export const createApplicationBody = z
  .object({
    name: z.string().trim().min(1).max(256),
    type: applicationType,
    description: z.string().max(2048).nullish(),
    oidcClientMetadata: oidcClientMetadata.optional(),
    customClientMetadata: customClientMetadata.optional(),
    isThirdParty: z.boolean().optional(),
  })
  .strict()
  .superRefine((body, ctx) => {
    for (const issue of redirectUriIssues(body.type, body.oidcClientMetadata ?? {}))
      ctx.addIssue({ code: 'custom', ...issue });
  });

export const updateApplicationBody = z
  .object({
    name: z.string().trim().min(1).max(256).optional(),
    description: z.string().max(2048).nullish(),
    oidcClientMetadata: oidcClientMetadataChange.optional(),
    customClientMetadata: customClientMetadata.optional(),
    isThirdParty: z.boolean().optional(),
  })
  .strict();

/** Logto's application search fields (`search.<field>`). */
export const APPLICATION_SEARCH_FIELDS = ['id', 'name', 'description'] as const;

/** Without `page` / `page_size` every application is listed, as in Logto. */
export const listApplicationsQuery = optionalPagination.extend({
  excludeRoleId: z.string().min(1).max(128).optional(),
  excludeOrganizationId: z.string().min(1).max(128).optional(),
  types: z
    .union([applicationType, z.array(applicationType)])
    .optional()
    .transform((value) => (value === undefined ? undefined : [value].flat())),
  isThirdParty: z
    .enum(['true', 'false'])
    .optional()
    .transform((value) => (value === undefined ? undefined : value === 'true')),
});

export const roleIdsBody = z.object({ roleIds: z.array(z.string().min(1).max(128)).min(1).max(100) }).strict();
