import { z } from 'zod';
import { userSchema } from '../../lib/events/entity-schemas.ts';
import { pagination } from '../../lib/http/api.ts';
import { PASSWORD_POLICY } from '../../lib/users/passwords.ts';
import { IMPORTED_PASSWORD_ALGORITHMS } from '../../lib/users/imported-passwords.ts';
import { jsonObject } from '../../lib/http/schemas.ts';
import { isPictureUrl } from '../../lib/users/picture.ts';

const text = z.string().max(256);

export const profile = z
  .object({
    familyName: text,
    givenName: text,
    middleName: text,
    nickname: text,
    preferredUsername: text,
    profile: text,
    website: text,
    gender: text,
    birthdate: text,
    zoneinfo: text,
    locale: text,
    address: z
      .object({
        formatted: text,
        streetAddress: text,
        locality: text,
        region: text,
        postalCode: text,
        country: text,
      })
      .partial()
      .strict(),
  })
  .partial()
  .strict();

export const username = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Z_a-z]\w*$/, 'must start with a letter or underscore, then letters, digits or underscores');
/** Stored lower-cased: sign-in and invitations compare email addresses case-insensitively. */
export const email = z
  .string()
  .max(320)
  .toLowerCase()
  .regex(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, 'must be an email address');
export const phone = z.string().min(1).max(32).regex(/^\d+$/, 'must be digits only (E.164 without the +)');
export const avatar = z.string().max(2048).refine(isPictureUrl, 'must be an absolute http(s) URL');
/** Any length the hashing accepts: the sign-in experience's password policy decides the rest (422 `password.rejected`). */
export const password = z.string().min(1).max(PASSWORD_POLICY.maxLength);

export const user = userSchema;

export const createUserBody = z
  .object({
    username: username.optional(),
    primaryEmail: email.optional(),
    primaryPhone: phone.optional(),
    name: z.string().max(256).optional(),
    avatar: avatar.optional(),
    customData: jsonObject.optional(),
    profile: profile.optional(),
    password: password.optional(),
    passwordDigest: z
      .string()
      .min(1)
      .max(1024)
      .optional()
      .describe('A digest made by another system, with passwordAlgorithm; replaced by ours at the first sign-in'),
    passwordAlgorithm: z.enum(IMPORTED_PASSWORD_ALGORITHMS).optional(),
  })
  .strict()
  .refine((body) => (body.passwordDigest === undefined) === (body.passwordAlgorithm === undefined), {
    path: ['passwordAlgorithm'],
    message: 'passwordDigest and passwordAlgorithm go together',
  })
  .refine((body) => body.password === undefined || body.passwordDigest === undefined, {
    path: ['passwordDigest'],
    message: 'give either password or passwordDigest, not both',
  });

export const updateUserBody = z
  .object({
    username: username.nullable().optional(),
    primaryEmail: email.nullable().optional(),
    primaryPhone: phone.nullable().optional(),
    name: z.string().max(256).nullable().optional(),
    avatar: avatar.nullable().optional(),
    customData: jsonObject.optional(),
    profile: profile.optional(),
  })
  .strict();

export const customDataBody = z.object({ customData: jsonObject }).strict();
export const profileBody = z.object({ profile }).strict();
export const passwordBody = z.object({ password }).strict();
/** Verification takes any string: the policy applies to setting a password, not to checking one. */
export const verifyPasswordBody = z.object({ password: z.string().min(1).max(PASSWORD_POLICY.maxLength) }).strict();
export const suspensionBody = z.object({ isSuspended: z.boolean() }).strict();

/** Logto's `includeSsoIdentities`; `includePasswordHash` is refused (400): digests never leave the service. */
export const getUserQuery = z
  .object({
    includeSsoIdentities: z
      .enum(['true', 'false'])
      .optional()
      .transform((value) => value === 'true'),
  })
  .strict();
export const userWithSsoIdentities = user.extend({
  ssoIdentities: z
    .array(z.record(z.string(), z.unknown()))
    .optional()
    .describe(
      "With includeSsoIdentities=true: the user's enterprise SSO identities (issuer, identityId, detail, ssoConnectorId)",
    ),
});

/** Logto's user search fields (`search.<field>`). */
export const USER_SEARCH_FIELDS = ['id', 'primaryEmail', 'primaryPhone', 'username', 'name'] as const;

/** Logto's `excludeRoleId` / `excludeOrganizationId`: users who do not hold the role / are not members. */
export const listUsersQuery = pagination
  .extend({
    excludeRoleId: z.string().min(1).max(128).optional(),
    excludeOrganizationId: z.string().min(1).max(128).optional(),
  })
  .refine((query) => !(query.excludeRoleId && query.excludeOrganizationId), {
    message: 'excludeRoleId and excludeOrganizationId cannot be used together',
  });

/** Fields `search` may name on a user's roles. */
export const USER_ROLE_SEARCH_FIELDS = ['id', 'name', 'description'] as const;

export const roleIdsBody = z.object({ roleIds: z.array(z.string().min(1).max(128)).min(1).max(100) }).strict();
export const replaceRoleIdsBody = z.object({ roleIds: z.array(z.string().min(1).max(128)).max(100) }).strict();
