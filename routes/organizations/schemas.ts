import { z } from 'zod';
import { organizationSchema } from '../../lib/events/entity-schemas.ts';
import { optionalPagination, pagination } from '../../lib/http/api.ts';
import { jsonObject } from '../../lib/http/schemas.ts';
import { user } from '../users/schemas.ts';

const ids = (max: number) => z.array(z.string().min(1).max(128)).max(max);

export const roleSummary = z.object({ id: z.string(), name: z.string() });

export const organization = organizationSchema;

export const organizationWithRoles = organization.extend({ organizationRoles: z.array(roleSummary) });
export const memberUser = user.extend({ organizationRoles: z.array(roleSummary) });

const name = z.string().trim().min(1).max(128);
const description = z.string().max(2048).nullish();

const isMfaRequired = z
  .boolean()
  .optional()
  .describe(
    'Members need a second factor: organization tokens are refused to a member without one, and with the sign-in ' +
      "experience's organizationRequiredMfaPolicy Mandatory, members must enrol at sign-in",
  );

const hexColor = z.string().regex(/^#([\da-f]{3}|[\da-f]{6})$/i, 'must be a hex color such as #5d34f2');
const color = z
  .object({ primaryColor: hexColor, isDarkModeEnabled: z.boolean(), darkPrimaryColor: hexColor })
  .partial()
  .strict()
  .describe(
    "The organization's colors on the sign-in pages of an authorization request naming it (`organization_id`): " +
      'primaryColor for buttons and links, darkPrimaryColor instead where the browser prefers dark when isDarkModeEnabled',
  );
const logoUrl = z
  .string()
  .max(2048)
  .refine((value) => /^https?:$/.test(URL.parse(value)?.protocol ?? ''), 'must be an absolute http(s) URL');
const branding = z
  .object({ logoUrl, darkLogoUrl: logoUrl })
  .partial()
  .strict()
  .describe(
    "The organization's logos on the sign-in pages of an authorization request naming it (`organization_id`), before " +
      "the application's and the sign-in experience's; darkLogoUrl where the browser prefers dark",
  );
const customCss = z
  .string()
  .max(65_536)
  .nullable()
  .describe(
    'A style sheet added to the sign-in pages of an authorization request naming the organization (`organization_id`); ' +
      'null removes it',
  );

export const createOrganizationBody = z
  .object({
    name,
    description,
    customData: jsonObject.optional(),
    isMfaRequired,
    color: color.optional(),
    branding: branding.optional(),
    customCss: customCss.optional(),
  })
  .strict();

export const updateOrganizationBody = z
  .object({
    name: name.optional(),
    description,
    customData: jsonObject.optional(),
    isMfaRequired,
    color: color.optional(),
    branding: branding.optional(),
    customCss: customCss.optional(),
  })
  .strict();

/** Logto's `q`: a text any search field contains. Logto's `search` parameters work too (`search` on routes). */
const q = z
  .string()
  .min(1)
  .max(256)
  .refine((value) => !value.includes('\u0000'), 'cannot contain NUL')
  .optional();
export const searchQuery = pagination.extend({ q });
/** Logto's `organizationRoleId`: only the members holding that organization role. */
export const membersQuery = searchQuery.extend({ organizationRoleId: z.string().min(1).max(128).optional() });
export const optionalSearchQuery = optionalPagination.extend({ q });
/** Logto's `showFeatured`: each organization carries its member count and up to three members. */
export const listOrganizationsQuery = searchQuery.extend({
  showFeatured: z
    .enum(['true', 'false', '1', '0'])
    .optional()
    .transform((value) => value === 'true' || value === '1'),
});
/** Fields `search.<field>` may name on organizations, organization roles and organization scopes. */
export const TEMPLATE_SEARCH_FIELDS = ['id', 'name', 'description'] as const;
/** For the lists Logto answers in full without `page` / `page_size` (`pagination: 'optional'`). */
export const optionalPageQuery = optionalPagination;

export const addUsersBody = z.object({ userIds: ids(100).min(1) }).strict();
export const replaceUsersBody = z.object({ userIds: ids(100) }).strict();
export const addApplicationsBody = z.object({ applicationIds: ids(100).min(1) }).strict();
export const replaceApplicationsBody = z.object({ applicationIds: ids(100) }).strict();
export const addMemberRolesBody = z.object({ organizationRoleIds: ids(100).min(1) }).strict();
export const replaceMemberRolesBody = z.object({ organizationRoleIds: ids(100) }).strict();
/** A member's roles by id and, as in Logto, by name (`organizationRoleNames`). */
const roleNames = z.array(z.string().min(1).max(128)).max(100);
export const memberRolesBody = z
  .object({
    organizationRoleIds: ids(100).optional(),
    organizationRoleNames: roleNames.optional(),
  })
  .strict();
export const addMemberRolesByNameBody = memberRolesBody.refine(
  (body) => (body.organizationRoleIds?.length ?? 0) + (body.organizationRoleNames?.length ?? 0) > 0,
  {
    message: 'name at least one role in organizationRoleIds or organizationRoleNames',
  },
);
export const assignMembersRolesBody = z
  .object({ userIds: ids(100).min(1), organizationRoleIds: ids(100).min(1) })
  .strict();
export const assignApplicationsRolesBody = z
  .object({ applicationIds: ids(100).min(1), organizationRoleIds: ids(100).min(1) })
  .strict();

/** A DNS name of at least two labels, compared lower-cased. */
export const emailDomain = z
  .string()
  .max(253)
  .toLowerCase()
  .regex(/^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9-]{2,63}$/, 'must be a domain name such as example.com');

export const jitEmailDomain = z.object({ organizationId: z.string(), emailDomain: z.string() });
export const addJitEmailDomainBody = z.object({ emailDomain }).strict();
export const replaceJitEmailDomainsBody = z.object({ emailDomains: z.array(emailDomain).max(100) }).strict();

/** An organization as `GET /organizations?showFeatured=true` answers it (Logto's shape). */
export const featuredOrganization = organization.extend({
  usersCount: z.number().optional(),
  featuredUsers: z
    .array(z.object({ id: z.string(), avatar: z.string().nullable(), name: z.string().nullable() }))
    .optional(),
});
