import { z } from 'zod';
import { PASSWORD_POLICY } from '../users/passwords.ts';

/**
 * The sign-in experience in Logto's shape, for the parts this service acts on. One schema describes what
 * is stored and answered; the patch schema is what `PATCH /api/sign-in-exp` takes.
 */

const signInIdentifier = z.enum(['username', 'email', 'phone']);
export type SignInIdentifier = z.infer<typeof signInIdentifier>;

const signInMode = z
  .enum(['SignIn', 'Register', 'SignInAndRegister'])
  .describe('SignIn: registration off; Register: registration only; SignInAndRegister: both');

const signInMethod = z.object({
  identifier: signInIdentifier,
  password: z.boolean(),
  verificationCode: z.boolean().describe('A one-time code sent to the email address or phone number'),
  isPasswordPrimary: z.boolean().describe('Which factor the sign-in page offers first when both are on'),
});

const signIn = z.object({ methods: z.array(signInMethod).max(3) });

const secondaryIdentifierName = z.enum(['username', 'email', 'phone', 'emailOrPhone']);

/** Logto's secondary sign-up identifier: one more a new account must give beyond the primary ones. */
const secondaryIdentifier = z
  .object({
    identifier: secondaryIdentifierName.describe('emailOrPhone: an email address or a phone number, either one'),
    verify: z
      .boolean()
      .optional()
      .describe(
        'Proven with a code: required (true) for email, phone and emailOrPhone, which are only ever taken by a verified code',
      ),
  })
  .strict();

const signUp = z.object({
  identifiers: z
    .array(signInIdentifier)
    .max(3)
    .describe('[], [username], [email], [phone], or [email, phone] (either one)'),
  password: z.boolean().describe('The new user sets a password'),
  verify: z.boolean().describe('The email address or phone number is verified with a code'),
  secondaryIdentifiers: z
    .array(secondaryIdentifier)
    .max(4)
    .optional()
    .describe(
      'What a new account must also give (and an account signing in must add when it lacks it), each once and ' +
        'none of the primary identifiers; submit and registration answer 422 user.missing_profile until given',
    ),
});

const MAX_LENGTH = PASSWORD_POLICY.maxLength;

/** Logto's password policy; `rejects.commonPasswords` is ours (an offline list instead of the pwned-passwords service). */
const passwordPolicy = z.object({
  length: z.object({
    min: z.number().int().min(1).max(MAX_LENGTH),
    max: z.number().int().min(1).max(MAX_LENGTH),
  }),
  characterTypes: z.object({
    min: z
      .number()
      .int()
      .min(1)
      .max(4)
      .describe('How many of lowercase letters, uppercase letters, digits and symbols a password mixes'),
  }),
  rejects: z.object({
    pwned: z.boolean().describe('Only false: checking a breach service needs the network'),
    commonPasswords: z.boolean().describe('Refuse the ~49,000 most common passwords (offline list)'),
    repetitionAndSequence: z.boolean().describe('Refuse aaaa, 1234, abcd, qwer and their reverses'),
    userInfo: z.boolean().describe("Refuse the user's username, email local part, phone number and name"),
    words: z.array(z.string().min(1).max(128)).max(100),
  }),
});
export type PasswordPolicy = z.infer<typeof passwordPolicy>;

/**
 * Logto's MFA settings, for the values this service acts on (others are refused with 400): the factors users may
 * enrol (Logto's email and phone factors are not offered), and when users without
 * one are asked to enrol: never (NoPrompt), at sign-in and sign-up with a way to skip (PromptAtSignInAndSignUp,
 * and Logto's older name for it, UserControlled), at sign-in only (PromptOnlyAtSignIn), or always (Mandatory).
 */
export const mfaFactorName = z.enum(['Totp', 'WebAuthn', 'BackupCode']);
const mfaSettings = z.object({
  factors: z.array(mfaFactorName).max(3).describe('What users may enrol; BackupCode only beside another factor'),
  policy: z.enum(['NoPrompt', 'UserControlled', 'PromptAtSignInAndSignUp', 'PromptOnlyAtSignIn', 'Mandatory']),
  organizationRequiredMfaPolicy: z
    .enum(['NoPrompt', 'Mandatory'])
    .describe('Mandatory: members of an organization with isMfaRequired must enrol at sign-in'),
});

/** Ours, not Logto's: what an impersonation needs and what the impersonated user is told. */
const impersonationSettings = z.object({
  requireReason: z
    .boolean()
    .describe(
      'POST /api/subject-tokens refuses a subject token without a reason (400 guard.invalid_input naming body.reason)',
    ),
  notifyByEmail: z
    .boolean()
    .describe(
      'Email the impersonated user (UserImpersonated template) after each successful exchange, when they have an email address',
    ),
});
export type ImpersonationSettings = z.infer<typeof impersonationSettings>;

const logoUrl = z
  .string()
  .max(2048)
  .refine((value) => /^https?:$/.test(URL.parse(value)?.protocol ?? ''), 'must be an absolute http(s) URL');

const branding = z.object({ logoUrl: logoUrl.optional(), darkLogoUrl: logoUrl.optional() });

export const signInExperience = z.object({
  id: z.literal('default'),
  signInMode,
  signIn,
  signUp,
  passwordPolicy,
  branding,
  mfa: mfaSettings,
  sentinelPolicy: z
    .object({
      maxAttempts: z
        .number()
        .int()
        .min(1)
        .max(1000)
        .optional()
        .describe(
          'Failed verifications that lock an account (or an identifier naming none); LOCKOUT_THRESHOLD when left out',
        ),
      lockoutDuration: z
        .number()
        .int()
        .min(1)
        .max(1440)
        .optional()
        .describe(
          'How long a lock lasts, in minutes, and how long failures are remembered; LOCKOUT_SECONDS when left out',
        ),
    })
    .strict()
    .describe("Logto's lockout settings, over the LOCKOUT_THRESHOLD and LOCKOUT_SECONDS defaults"),
  forgotPasswordMethods: z
    .array(z.enum(['EmailVerificationCode', 'PhoneVerificationCode']))
    .max(2)
    .nullable()
    .describe(
      'How a forgotten password is reset: a code to the email, to the phone, or (null) to the email and, when ' +
        'a sign-in method uses phone numbers, the phone; an empty list offers no reset',
    ),
  singleSignOnEnabled: z
    .boolean()
    .describe(
      'Enterprise SSO at sign-in: the SSO form and email-domain discovery on the pages, GET /api/experience/sso-connectors, ' +
        'SSO verifications, and the refusal of passwords and codes for SSO domains; false turns all of it off',
    ),
  impersonation: impersonationSettings,
  socialSignIn: z
    .object({
      automaticAccountLinking: z
        .boolean()
        .optional()
        .describe(
          "true: a social identity no account holds yet signs in the account with the provider's verified email and is " +
            'linked to it, without asking (no linkSocialIdentity); false or left out: 404 user.identity_not_exist with relatedUser',
        ),
      skipRequiredIdentifiers: z
        .boolean()
        .optional()
        .describe(
          'true: an account registering or signing in through a social connector is not asked for the sign-up ' +
            'identifiers the provider did not give; false or left out: 422 user.missing_profile until they are added',
        ),
    })
    .strict()
    .describe("Logto's social sign-in settings"),
});
export type SignInExperience = z.infer<typeof signInExperience>;

export const DEFAULT_SIGN_IN_EXPERIENCE: SignInExperience = {
  id: 'default',
  signInMode: 'SignInAndRegister',
  signIn: {
    methods: [
      { identifier: 'username', password: true, verificationCode: false, isPasswordPrimary: true },
      { identifier: 'email', password: true, verificationCode: true, isPasswordPrimary: true },
    ],
  },
  signUp: { identifiers: ['username'], password: true, verify: false },
  passwordPolicy: {
    length: { min: 8, max: MAX_LENGTH },
    characterTypes: { min: 1 },
    rejects: { pwned: false, commonPasswords: true, repetitionAndSequence: false, userInfo: true, words: [] },
  },
  branding: {},
  mfa: { factors: [], policy: 'UserControlled', organizationRequiredMfaPolicy: 'NoPrompt' },
  sentinelPolicy: {},
  forgotPasswordMethods: null,
  // On (Logto's default is off): an enterprise connector works as soon as it is created, as it always has here.
  singleSignOnEnabled: true,
  impersonation: { requireReason: false, notifyByEmail: false },
  socialSignIn: {},
};

/**
 * Settings of Logto's sign-in experience this service does not implement. A patch naming one is refused
 * (422 `sign_in_experiences.unsupported_setting`), never stored and ignored.
 */
const UNSUPPORTED_SETTINGS = [
  'tenantId',
  'color',
  'hideLogtoBranding',
  'languageInfo',
  'termsOfUseUrl',
  'privacyPolicyUrl',
  'agreeToTermsPolicy',
  'supportEmail',
  'supportWebsiteUrl',
  'unknownSessionRedirectUrl',
  'socialSignInConnectorTargets',
  'customCss',
  'customContent',
  'customUiAssets',
  'customUiCsp',
  'adaptiveMfa',
  'captchaPolicy',
  'emailBlocklistPolicy',
  'emailAllowlistPolicy',
  'passkeySignIn',
  'signUpProfileFields',
  'usernamePolicy',
  'passwordExpiration',
  'verificationCodePolicy',
] as const;
const UNSUPPORTED_BRANDING = ['favicon', 'darkFavicon'] as const;

const unsupported = z.unknown().optional().describe('A Logto setting this service does not support: refused with 422');
function unsupportedShape<K extends string>(keys: readonly K[]) {
  return Object.fromEntries(keys.map((key) => [key, unsupported])) as Record<K, typeof unsupported>;
}

/**
 * A patch: every top-level field optional and, when given, replacing the stored one whole, as Logto's
 * `PATCH /api/sign-in-exp` does; `passwordPolicy` fields left out take their defaults. Logto settings this
 * service lacks are named so that the library can refuse them with their own code.
 */
export const signInExperiencePatch = z
  .object({
    id: z.literal('default').optional().describe('Accepted for round trips of GET; there is one sign-in experience'),
    signInMode: signInMode.optional(),
    signIn: z
      .object({ methods: z.array(signInMethod.strict()).max(3) })
      .strict()
      .optional(),
    signUp: signUp.strict().optional(),
    passwordPolicy: z
      .object({
        length: passwordPolicy.shape.length.partial().strict().optional(),
        characterTypes: passwordPolicy.shape.characterTypes.partial().strict().optional(),
        rejects: passwordPolicy.shape.rejects.partial().strict().optional(),
      })
      .strict()
      .optional(),
    branding: branding.extend(unsupportedShape(UNSUPPORTED_BRANDING)).strict().optional(),
    mfa: mfaSettings
      .partial({ organizationRequiredMfaPolicy: true })
      .strict()
      .optional()
      .describe('Replaces the MFA settings whole; organizationRequiredMfaPolicy defaults to NoPrompt'),
    sentinelPolicy: signInExperience.shape.sentinelPolicy
      .optional()
      .describe('Replaces the stored lockout settings whole'),
    forgotPasswordMethods: z
      .array(z.enum(['EmailVerificationCode', 'PhoneVerificationCode']))
      .max(2)
      .refine((methods) => new Set(methods).size === methods.length, 'each method once')
      .nullable()
      .optional(),
    singleSignOnEnabled: z.boolean().optional(),
    impersonation: impersonationSettings
      .partial()
      .strict()
      .optional()
      .describe('The fields given replace the stored ones; those left out keep their values'),
    socialSignIn: z
      .object({
        automaticAccountLinking: z.boolean().optional(),
        skipRequiredIdentifiers: z.boolean().optional(),
      })
      .strict()
      .optional()
      .describe('Replaces the stored social sign-in settings whole'),
    ...unsupportedShape(UNSUPPORTED_SETTINGS),
  })
  .strict();
export type SignInExperiencePatch = z.infer<typeof signInExperiencePatch>;

/** The paths of the unsupported settings a parsed patch names, e.g. `adaptiveMfa` or `branding.favicon`. */
export function unsupportedSettingsOf(patch: SignInExperiencePatch): string[] {
  const named: string[] = UNSUPPORTED_SETTINGS.filter((key) => patch[key] !== undefined);
  for (const key of UNSUPPORTED_BRANDING) if (patch.branding?.[key] !== undefined) named.push(`branding.${key}`);
  return named;
}
