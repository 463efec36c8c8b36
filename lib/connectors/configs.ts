import { z } from 'zod';
import { upstreamUrlProblem } from './outbound.ts';

/**
 * What the connectors this service implements are configured with, in Logto's field names where Logto has
 * them. Every object is strict: a setting the service would not act on is refused, never stored.
 */

const upstreamUrl = z
  .string()
  .max(2048)
  .superRefine((value, ctx) => {
    const problem = upstreamUrlProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });
const clientId = z.string().min(1).max(256);
/** Write-only: stored encrypted, answered masked. */
const clientSecret = z.string().min(1).max(1024);
const claimName = z.string().min(1).max(128);
const tokenEndpointAuthMethod = z.enum(['client_secret_basic', 'client_secret_post', 'client_secret_jwt']);
/** Logto's `clientSecretJwtSigningAlgorithm`: the HMAC that signs the client assertion of `client_secret_jwt`. */
const clientSecretJwtSigningAlgorithm = z
  .enum(['HS256', 'HS384', 'HS512'])
  .describe('With client_secret_jwt: the HMAC signing the client assertion (default HS256)')
  .optional();

/** Which upstream claim holds each profile field (`emailVerified`: a boolean claim saying the email is verified). */
export const profileMap = z
  .object({
    id: claimName,
    email: claimName,
    emailVerified: claimName,
    phone: claimName,
    name: claimName,
    avatar: claimName,
  })
  .partial()
  .strict();
export type ProfileMap = z.infer<typeof profileMap>;

export const OIDC_PROFILE_DEFAULTS: Required<ProfileMap> = {
  id: 'sub',
  email: 'email',
  emailVerified: 'email_verified',
  phone: 'phone_number',
  name: 'name',
  avatar: 'picture',
};
/** Logto's OAuth 2.0 connector defaults; no claim says an email is verified unless one is mapped. */
export const OAUTH2_PROFILE_DEFAULTS: ProfileMap = {
  id: 'id',
  email: 'email',
  phone: 'phone',
  name: 'name',
  avatar: 'avatar',
};

const scopeText = z
  .string()
  .max(1024)
  .regex(/^[\x21\x23-\x5B\x5D-\x7E]+( [\x21\x23-\x5B\x5D-\x7E]+)*$/, 'space-separated scope tokens');
/** Logto's spelling: tokens separated by spaces or `+`; `openid` is added when missing, as Logto does. */
const openidScope = z
  .string()
  .max(1024)
  .transform((value) => {
    const tokens = value.split(/[ +]/).filter(Boolean);
    return (tokens.includes('openid') ? tokens : [...tokens, 'openid']).join(' ');
  })
  .pipe(scopeText);

/** Logto's fixed values: the authorization code flow is the only one the connectors run. */
const responseType = z
  .literal('code')
  .describe("Logto's responseType: code, the only flow the connectors run")
  .optional();
const grantType = z
  .literal('authorization_code')
  .describe("Logto's grantType: authorization_code, the only one")
  .optional();

/**
 * Logto's `customConfig`: extra parameters of the authorization request and of the code's token request, names
 * written in snake case as Logto sends them (`accessType` goes as `access_type`). The parameters the flow itself
 * sets (and `scope`, which has its own setting) cannot be replaced.
 */
const PROTOCOL_PARAMETERS: ReadonlySet<string> = new Set([
  'response_type',
  'client_id',
  'client_secret',
  'redirect_uri',
  'scope',
  'state',
  'nonce',
  'code',
  'code_verifier',
  'code_challenge',
  'code_challenge_method',
  'grant_type',
  'response_mode',
  'request',
  'request_uri',
  'client_assertion',
  'client_assertion_type',
]);
export const snakeCase = (name: string) => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
const customConfig = z
  .record(z.string().regex(/^[A-Za-z][\w.-]{0,63}$/, 'a parameter name'), z.string().max(2048))
  .superRefine((record, ctx) => {
    const names = Object.keys(record);
    if (names.length > 20) ctx.addIssue({ code: 'custom', message: 'at most 20 parameters' });
    for (const name of names.filter((given) => PROTOCOL_PARAMETERS.has(snakeCase(given)))) {
      ctx.addIssue({
        code: 'custom',
        path: [name],
        message: `${snakeCase(name)} is set by the flow itself and cannot be replaced`,
      });
    }
  })
  .optional();

/** Logto's `authRequestOptionalConfig`: OpenID Connect's optional authorization parameters, in Logto's names. */
export const AUTH_REQUEST_PARAMETERS = {
  responseMode: 'response_mode',
  display: 'display',
  prompt: 'prompt',
  maxAge: 'max_age',
  uiLocales: 'ui_locales',
  idTokenHint: 'id_token_hint',
  loginHint: 'login_hint',
  acrValues: 'acr_values',
} as const;
const parameterText = z.string().min(1).max(2048);
const authRequestOptionalConfig = z
  .object({
    responseMode: z.literal('query', {
      message: 'query: the callback reads the query string (form_post and fragment cannot reach it)',
    }),
    display: parameterText,
    prompt: parameterText,
    maxAge: z.string().regex(/^\d{1,9}$/, 'seconds'),
    uiLocales: parameterText,
    idTokenHint: z.string().min(1).max(8192),
    loginHint: parameterText,
    acrValues: parameterText,
  })
  .partial()
  .strict()
  .optional();

/** A duration as jose takes it: seconds, or a number with a unit (`30s`, `5 minutes`, `1h`), at most a day. */
const DURATION_UNITS: Record<string, number> = {
  s: 1,
  sec: 1,
  secs: 1,
  second: 1,
  seconds: 1,
  m: 60,
  min: 60,
  mins: 60,
  minute: 60,
  minutes: 60,
  h: 3600,
  hr: 3600,
  hrs: 3600,
  hour: 3600,
  hours: 3600,
  d: 86_400,
  day: 86_400,
  days: 86_400,
};
const duration = z.union([z.number(), z.string()]).transform((value, ctx) => {
  const match = typeof value === 'string' ? /^(\d{1,6}) ?([a-z]+)$/.exec(value.trim()) : undefined;
  const seconds =
    typeof value === 'number'
      ? value
      : match && DURATION_UNITS[match[2]!]
        ? Number(match[1]) * DURATION_UNITS[match[2]!]!
        : Number.NaN;
  if (!(Number.isFinite(seconds) && seconds >= 0 && seconds <= 86_400)) {
    ctx.addIssue({ code: 'custom', message: 'seconds, or a number with a unit (30s, 5 minutes, 1h), at most a day' });
    return z.NEVER;
  }
  return seconds;
});
/** Asymmetric JWS algorithms: the keys come from the provider's JWKS, so `none` and the HMAC ones can never verify. */
const JWS_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
] as const;
const oneOrMore = z.union([z.string().min(1).max(2048), z.array(z.string().min(1).max(2048)).min(1).max(10)]);

/**
 * Logto's `idTokenVerificationConfig`: where the provider's keys are and what jose checks of the ID token beyond its
 * signature, audience (the client id, always) and nonce. `currentDate`, a fixed verification time, is refused: it
 * would accept expired tokens.
 */
const idTokenVerificationConfig = z
  .object({
    jwksUri: upstreamUrl,
    issuer: oneOrMore
      .optional()
      .describe("The issuers the ID token's iss may name; without it iss is not checked (as in Logto)"),
    audience: oneOrMore.optional().describe('Must name the client id (the one audience accepted, as in Logto)'),
    algorithms: z.array(z.enum(JWS_ALGORITHMS)).min(1).max(JWS_ALGORITHMS.length).optional(),
    clockTolerance: duration.optional(),
    maxTokenAge: duration.optional().describe("The ID token's iat may be at most this old"),
    subject: z.string().min(1).max(256).optional(),
    typ: z.string().min(1).max(64).optional(),
    crit: z
      .record(z.string().min(1).max(64), z.boolean())
      .refine((record) => Object.keys(record).length <= 16, 'at most 16')
      .optional(),
  })
  .strict();
export type IdTokenVerification = z.infer<typeof idTokenVerificationConfig>;

/**
 * The generic OIDC connector: `issuer` (its discovery document gives the endpoints), or Logto's explicit
 * `authorizationEndpoint`, `tokenEndpoint` and `idTokenVerificationConfig` (or the older `idTokenConfig { issuer,
 * jwksUri }`). The ID token is verified (signature, issuer, audience, nonce); `userInfoEndpoint`, when known, adds
 * the userinfo claims.
 */
export const oidcConfig = z
  .object({
    clientId,
    clientSecret,
    issuer: upstreamUrl
      .optional()
      .describe("Discovery: the provider's issuer; its endpoints come from /.well-known/openid-configuration"),
    authorizationEndpoint: upstreamUrl.optional(),
    tokenEndpoint: upstreamUrl.optional(),
    userInfoEndpoint: upstreamUrl.optional(),
    idTokenConfig: z
      .object({ issuer: z.string().min(1).max(2048), jwksUri: upstreamUrl })
      .strict()
      .optional(),
    idTokenVerificationConfig: idTokenVerificationConfig.optional(),
    scope: openidScope.default('openid profile email'),
    responseType,
    grantType,
    customConfig,
    authRequestOptionalConfig,
    tokenEndpointAuthMethod: tokenEndpointAuthMethod.default('client_secret_basic'),
    clientSecretJwtSigningAlgorithm,
    profileMap: profileMap.default({}),
  })
  .strict()
  .superRefine((config, ctx) => {
    if (config.issuer && config.tokenEndpointAuthMethod === 'client_secret_jwt') {
      ctx.addIssue({
        code: 'custom',
        path: ['tokenEndpointAuthMethod'],
        message:
          'client_secret_jwt is taken with the endpoints (authorizationEndpoint, tokenEndpoint), not with issuer discovery',
      });
    }
    const verification = config.idTokenVerificationConfig ?? config.idTokenConfig;
    const explicit =
      config.authorizationEndpoint !== undefined || config.tokenEndpoint !== undefined || verification !== undefined;
    if (config.idTokenConfig && config.idTokenVerificationConfig) {
      ctx.addIssue({
        code: 'custom',
        path: ['idTokenConfig'],
        message: 'give idTokenVerificationConfig or idTokenConfig, not both',
      });
    } else if (config.issuer && explicit) {
      ctx.addIssue({
        code: 'custom',
        path: ['issuer'],
        message: 'give either issuer (discovery) or the endpoints with idTokenVerificationConfig, not both',
      });
    } else if (!config.issuer && !(config.authorizationEndpoint && config.tokenEndpoint && verification)) {
      ctx.addIssue({
        code: 'custom',
        path: ['issuer'],
        message: 'give issuer (discovery), or authorizationEndpoint, tokenEndpoint and idTokenVerificationConfig',
      });
    }
    const audience = config.idTokenVerificationConfig?.audience;
    if (audience !== undefined && [audience].flat().some((value) => value !== config.clientId)) {
      ctx.addIssue({
        code: 'custom',
        path: ['idTokenVerificationConfig', 'audience'],
        message: 'ID tokens are accepted for the client id only: name it alone, or leave audience out',
      });
    }
  });
export type OidcConfig = z.infer<typeof oidcConfig>;

/**
 * The generic OAuth 2.0 connector (authorization code with PKCE): Logto's `authorizationEndpoint`,
 * `tokenEndpoint` and `userInfoEndpoint`, or `issuer` to take them from a discovery document; `profileMap`
 * names the userinfo fields; `tokenEndpointResponseType` how the token endpoint answers.
 */
export const oauth2Config = z
  .object({
    clientId,
    clientSecret,
    issuer: upstreamUrl.optional().describe("Discovery: endpoints from the issuer's /.well-known/openid-configuration"),
    authorizationEndpoint: upstreamUrl.optional(),
    tokenEndpoint: upstreamUrl.optional(),
    userInfoEndpoint: upstreamUrl.optional(),
    scope: z
      .string()
      .max(1024)
      .transform((value) => value.split(/[ +]/).filter(Boolean).join(' '))
      .pipe(scopeText.or(z.literal('')))
      .optional(),
    responseType,
    grantType,
    customConfig,
    tokenEndpointResponseType: z
      .enum(['json', 'query-string'])
      .optional()
      .describe(
        'How the token endpoint answers: json, or query-string (form encoded, as GitHub answers); left out, either is read',
      ),
    tokenEndpointAuthMethod: tokenEndpointAuthMethod.default('client_secret_basic'),
    clientSecretJwtSigningAlgorithm,
    profileMap: profileMap.default({}),
  })
  .strict()
  .superRefine((config, ctx) => {
    const explicit =
      config.authorizationEndpoint !== undefined ||
      config.tokenEndpoint !== undefined ||
      config.userInfoEndpoint !== undefined;
    if (config.issuer && explicit) {
      ctx.addIssue({
        code: 'custom',
        path: ['issuer'],
        message: 'give either issuer (discovery) or the three endpoints, not both',
      });
    } else if (!config.issuer && !(config.authorizationEndpoint && config.tokenEndpoint && config.userInfoEndpoint)) {
      ctx.addIssue({
        code: 'custom',
        path: ['issuer'],
        message: 'give issuer (discovery), or authorizationEndpoint, tokenEndpoint and userInfoEndpoint',
      });
    }
  });
export type OAuth2Config = z.infer<typeof oauth2Config>;

/** Logto's OIDC enterprise connector config. */
export const ssoOidcConfig = z
  .object({
    clientId,
    clientSecret,
    issuer: upstreamUrl,
    scope: openidScope.default('openid profile email'),
    trustUnverifiedEmail: z
      .boolean()
      .default(false)
      .describe(
        'Treat the email the provider gives as verified even without email_verified: true (links accounts by it)',
      ),
  })
  .strict();
export type SsoOidcConfig = z.infer<typeof ssoOidcConfig>;

export const SOCIAL_FACTORIES = {
  oidc: {
    name: 'OIDC',
    description: 'Any OpenID Connect provider: authorization code with PKCE, verified ID token.',
    schema: oidcConfig,
  },
  oauth2: {
    name: 'OAuth 2.0',
    description: 'Any OAuth 2.0 provider: authorization code with PKCE, then its userinfo endpoint.',
    schema: oauth2Config,
  },
} as const;
export type SocialFactoryId = keyof typeof SOCIAL_FACTORIES;
export const SOCIAL_FACTORY_IDS = Object.keys(SOCIAL_FACTORIES) as SocialFactoryId[];
