import { z } from 'zod';
import { upstreamUrlProblem } from './outbound.ts';

/**
 * What the connectors this service implements are configured with, in Logto's field names where Logto has
 * them. Every object is strict: a setting the service would not act on is refused, never stored.
 */

const upstreamUrl = z.string().max(2048).superRefine((value, ctx) => {
  const problem = upstreamUrlProblem(value);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});
const clientId = z.string().min(1).max(256);
/** Write-only: stored encrypted, answered masked. */
const clientSecret = z.string().min(1).max(1024);
const claimName = z.string().min(1).max(128);
const tokenEndpointAuthMethod = z.enum(['client_secret_basic', 'client_secret_post']);

/** Which upstream claim holds each profile field (`emailVerified`: a boolean claim saying the email is verified). */
export const profileMap = z.object({
  id: claimName, email: claimName, emailVerified: claimName, phone: claimName, name: claimName, avatar: claimName,
}).partial().strict();
export type ProfileMap = z.infer<typeof profileMap>;

export const OIDC_PROFILE_DEFAULTS: Required<ProfileMap> = {
  id: 'sub', email: 'email', emailVerified: 'email_verified', phone: 'phone_number', name: 'name', avatar: 'picture',
};
/** Logto's OAuth 2.0 connector defaults; no claim says an email is verified unless one is mapped. */
export const OAUTH2_PROFILE_DEFAULTS: ProfileMap = { id: 'id', email: 'email', phone: 'phone', name: 'name', avatar: 'avatar' };

const scopeText = z.string().max(1024).regex(/^[\x21\x23-\x5B\x5D-\x7E]+( [\x21\x23-\x5B\x5D-\x7E]+)*$/, 'space-separated scope tokens');

/**
 * The generic OIDC connector: `issuer` (its discovery document gives the endpoints), or Logto's explicit
 * `authorizationEndpoint`, `tokenEndpoint` and `idTokenConfig { issuer, jwksUri }`. The ID token is verified
 * (signature, issuer, audience, nonce); `userInfoEndpoint`, when known, adds the userinfo claims.
 */
export const oidcConfig = z.object({
  clientId,
  clientSecret,
  issuer: upstreamUrl.optional().describe('Discovery: the provider\'s issuer; its endpoints come from /.well-known/openid-configuration'),
  authorizationEndpoint: upstreamUrl.optional(),
  tokenEndpoint: upstreamUrl.optional(),
  userInfoEndpoint: upstreamUrl.optional(),
  idTokenConfig: z.object({ issuer: z.string().min(1).max(2048), jwksUri: upstreamUrl }).strict().optional(),
  scope: scopeText.refine((value) => value.split(' ').includes('openid'), 'must include openid').default('openid profile email'),
  tokenEndpointAuthMethod: tokenEndpointAuthMethod.default('client_secret_basic'),
  profileMap: profileMap.default({}),
}).strict().superRefine((config, ctx) => {
  const explicit = config.authorizationEndpoint !== undefined || config.tokenEndpoint !== undefined || config.idTokenConfig !== undefined;
  if (config.issuer && explicit) {
    ctx.addIssue({ code: 'custom', path: ['issuer'], message: 'give either issuer (discovery) or the endpoints with idTokenConfig, not both' });
  } else if (!config.issuer && !(config.authorizationEndpoint && config.tokenEndpoint && config.idTokenConfig)) {
    ctx.addIssue({ code: 'custom', path: ['issuer'], message: 'give issuer (discovery), or authorizationEndpoint, tokenEndpoint and idTokenConfig' });
  }
});
export type OidcConfig = z.infer<typeof oidcConfig>;

/**
 * The generic OAuth 2.0 connector (authorization code with PKCE): Logto's `authorizationEndpoint`,
 * `tokenEndpoint` and `userInfoEndpoint`, or `issuer` to take them from a discovery document; `profileMap`
 * names the userinfo fields.
 */
export const oauth2Config = z.object({
  clientId,
  clientSecret,
  issuer: upstreamUrl.optional().describe('Discovery: endpoints from the issuer\'s /.well-known/openid-configuration'),
  authorizationEndpoint: upstreamUrl.optional(),
  tokenEndpoint: upstreamUrl.optional(),
  userInfoEndpoint: upstreamUrl.optional(),
  scope: scopeText.optional(),
  tokenEndpointAuthMethod: tokenEndpointAuthMethod.default('client_secret_basic'),
  profileMap: profileMap.default({}),
}).strict().superRefine((config, ctx) => {
  const explicit = config.authorizationEndpoint !== undefined || config.tokenEndpoint !== undefined || config.userInfoEndpoint !== undefined;
  if (config.issuer && explicit) {
    ctx.addIssue({ code: 'custom', path: ['issuer'], message: 'give either issuer (discovery) or the three endpoints, not both' });
  } else if (!config.issuer && !(config.authorizationEndpoint && config.tokenEndpoint && config.userInfoEndpoint)) {
    ctx.addIssue({ code: 'custom', path: ['issuer'], message: 'give issuer (discovery), or authorizationEndpoint, tokenEndpoint and userInfoEndpoint' });
  }
});
export type OAuth2Config = z.infer<typeof oauth2Config>;

/** Logto's OIDC enterprise connector config. */
export const ssoOidcConfig = z.object({
  clientId,
  clientSecret,
  issuer: upstreamUrl,
  scope: scopeText.refine((value) => value.split(' ').includes('openid'), 'must include openid').default('openid profile email'),
  trustUnverifiedEmail: z.boolean().default(false)
    .describe('Treat the email the provider gives as verified even without email_verified: true (links accounts by it)'),
}).strict();
export type SsoOidcConfig = z.infer<typeof ssoOidcConfig>;

export const SOCIAL_FACTORIES = {
  oidc: { name: 'OIDC', description: 'Any OpenID Connect provider: authorization code with PKCE, verified ID token.', schema: oidcConfig },
  oauth2: { name: 'OAuth 2.0', description: 'Any OAuth 2.0 provider: authorization code with PKCE, then its userinfo endpoint.', schema: oauth2Config },
} as const;
export type SocialFactoryId = keyof typeof SOCIAL_FACTORIES;
export const SOCIAL_FACTORY_IDS = Object.keys(SOCIAL_FACTORIES) as SocialFactoryId[];
