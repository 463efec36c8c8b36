import { z } from 'zod';
import { SOCIAL_FACTORIES, SOCIAL_FACTORY_IDS } from '../../lib/connectors/configs.ts';
import type { SocialConnector } from '../../lib/connectors/repository.ts';
import type { SsoConnector } from '../../lib/connectors/sso-connector.ts';
import { jsonObject, withoutNul } from '../../lib/http/schemas.ts';

/** Logto's shapes for social connectors and their factories, and for enterprise SSO connectors. */

const i18n = z.record(z.string().max(35), z.string().max(256));
const imageUrl = z
  .string()
  .max(2048)
  .refine((value) => URL.canParse(value), 'must be an absolute URL');
/** Secrets in a config are answered masked (`********` and the last four characters), never in full. */
const maskedConfig = z.record(z.string(), z.unknown()).describe('The config as set, its clientSecret masked');

export const connectorFactory = z.object({
  id: z.enum(SOCIAL_FACTORY_IDS),
  type: z.literal('Social'),
  platform: z.literal('Universal'),
  isStandard: z.literal(true),
  name: i18n,
  description: i18n,
  logo: z.string().nullable(),
  logoDark: z.string().nullable(),
});

export const connectorResponse = connectorFactory.omit({ id: true }).extend({
  id: z.string(),
  connectorId: z.enum(SOCIAL_FACTORY_IDS),
  target: z.string(),
  syncProfile: z.boolean(),
  config: maskedConfig,
  metadata: z.object({ target: z.string(), name: i18n, logo: z.string().nullable(), logoDark: z.string().nullable() }),
});

/**
 * A social connector's logo as Logto exports it: an absolute http(s) URL, a relative path (Logto's built-in connectors
 * name a file of their package, `./logo.svg`, answered as given), or `''` for none (stored as null).
 */
const hasControlCharacter = (text: string) => [...text].some((character) => character.charCodeAt(0) < 0x20);
const connectorLogo = z
  .string()
  .max(2048)
  .refine(
    (value) =>
      value === '' ||
      /^https?:$/.test(URL.parse(value)?.protocol ?? '') ||
      (value.trim() === value &&
        !/^[a-z][a-z\d+.-]*:/i.test(value) &&
        !/^[\\/]{2}/.test(value) &&
        !hasControlCharacter(value)),
    'an absolute http(s) URL, a relative path, or empty',
  )
  .transform((value) => (value === '' ? null : value));
const target = withoutNul(z.string().regex(/^[\w.-]{1,64}$/, '1-64 letters, digits, "_", "." or "-"'));
const metadata = z
  .object({
    target,
    name: i18n.optional(),
    logo: connectorLogo.nullable().optional(),
    logoDark: connectorLogo.nullable().optional(),
  })
  .strict();

export const createConnectorBody = z
  .object({
    id: z
      .string()
      .regex(/^[\w-]{1,64}$/, '1-64 letters, digits, "_" or "-"')
      .optional(),
    connectorId: z.string().min(1).max(128).describe('The factory: oidc or oauth2 (GET /api/connector-factories)'),
    config: jsonObject
      .optional()
      .describe("The factory's config (GET /api/connector-factories); checked once the factory is known"),
    metadata: metadata
      .optional()
      .describe(
        'Required (400 connector.should_specify_target without it): target names the identity on users (identities[target]); unique among social connectors',
      ),
    syncProfile: z
      .boolean()
      .optional()
      .describe('Copy name and avatar from the provider at every sign-in, not only at registration'),
  })
  .strict();

export const updateConnectorBody = z
  .object({
    config: jsonObject
      .optional()
      .describe('Replaces the config; a clientSecret left out or sent back masked keeps the stored one'),
    metadata: metadata.partial().strict().optional(),
    syncProfile: z.boolean().optional(),
  })
  .strict();

export function factoryOf(id: keyof typeof SOCIAL_FACTORIES) {
  const factory = SOCIAL_FACTORIES[id];
  return {
    id,
    type: 'Social' as const,
    platform: 'Universal' as const,
    isStandard: true as const,
    name: { en: factory.name },
    description: { en: factory.description },
    logo: null,
    logoDark: null,
  };
}

export function presentConnector(connector: SocialConnector) {
  const { id: _factory, ...factory } = factoryOf(connector.connectorId);
  return {
    ...factory,
    ...connector,
    target: connector.metadata.target,
    name: connector.metadata.name,
    logo: connector.metadata.logo,
    logoDark: connector.metadata.logoDark,
  };
}

const branding = z
  .object({
    displayName: z.string().min(1).max(128).optional(),
    logo: imageUrl.optional(),
    darkLogo: imageUrl.optional(),
  })
  .strict();

export const ssoConnectorResponse = z.object({
  id: z.string(),
  providerName: z.literal('OIDC'),
  providerType: z.literal('oidc'),
  connectorName: z.string(),
  config: maskedConfig,
  domains: z.array(z.string()),
  branding: z.object({
    displayName: z.string().optional(),
    logo: z.string().optional(),
    darkLogo: z.string().optional(),
  }),
  syncProfile: z.boolean(),
  createdAt: z.number(),
});

export const presentSsoConnector = (connector: SsoConnector) => ({ ...connector, providerType: 'oidc' as const });

const connectorName = withoutNul(z.string().min(1).max(128));
const domains = z
  .array(z.string().min(1).max(253))
  .max(100)
  .describe('Email domains whose users sign in through this connector');

export const createSsoConnectorBody = z
  .object({
    providerName: z.string().min(1).max(64).describe('OIDC (the only provider this service implements)'),
    connectorName,
    config: jsonObject.optional().describe('clientId, clientSecret, issuer, scope, trustUnverifiedEmail'),
    domains: domains.optional(),
    branding: branding.optional(),
    syncProfile: z.boolean().optional(),
  })
  .strict();

export const updateSsoConnectorBody = z
  .object({
    connectorName: connectorName.optional(),
    config: jsonObject
      .optional()
      .describe('Replaces the config; a clientSecret left out or sent back masked keeps the stored one'),
    domains: domains.optional(),
    branding: branding.optional(),
    syncProfile: z.boolean().optional(),
  })
  .strict();

export const ssoProvider = z.object({
  providerName: z.literal('OIDC'),
  providerType: z.literal('oidc'),
  name: i18n,
  description: i18n,
  logo: z.string().nullable(),
  logoDark: z.string().nullable(),
});
