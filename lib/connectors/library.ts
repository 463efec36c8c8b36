import type { z } from 'zod';
import { errors, unique } from '../errors.ts';
import { newId } from '../ids.ts';
import type { Page, PageResult } from '../data/entity.ts';
import type { ConnectorsRepository } from './repository.ts';
import type { OrganizationsRepository } from '../organizations/repository.ts';
import { SOCIAL_FACTORIES, ssoOidcConfig, type SocialFactoryId } from './configs.ts';
import type { SocialConnector } from './repository.ts';
import type { SsoConnector } from './sso-connector.ts';
import type { SecretBox } from '../secret-box.ts';
import { maskSecret } from './secrets.ts';
import type { UsableConnector, Upstreams } from './upstream.ts';

export interface NewSocialConnector {
  id?: string;
  connectorId: SocialFactoryId;
  config: Record<string, unknown>;
  metadata: { target: string; name?: Record<string, string>; logo?: string | null; logoDark?: string | null };
  syncProfile?: boolean;
}

export interface SocialConnectorChanges {
  config?: Record<string, unknown>;
  metadata?: Partial<NewSocialConnector['metadata']>;
  syncProfile?: boolean;
}

export interface NewSsoConnector {
  providerName: 'OIDC';
  connectorName: string;
  config?: Record<string, unknown>;
  domains?: string[];
  branding?: SsoConnector['branding'];
  syncProfile?: boolean;
}

export type SsoConnectorChanges = Partial<Omit<NewSsoConnector, 'providerName'>>;

type Deps = { connectors: ConnectorsRepository; organizations: OrganizationsRepository };

/**
 * A config as given (the secret in clear, or its mask to keep the stored one) checked against the factory's
 * schema: 400 `connector.invalid_config` listing every problem. Returns the config to store (secret masked)
 * and the secret to seal when it changed.
 */
function checkedConfig<S extends z.ZodType>(
  schema: S,
  given: Record<string, unknown>,
  stored?: { config: Record<string, unknown>; secret: string | undefined },
): { parsed: z.infer<S>; config: Record<string, unknown>; secret: string } {
  const keeps = stored && (given.clientSecret === undefined || given.clientSecret === stored.config.clientSecret);
  const candidate = keeps && stored.secret !== undefined ? { ...given, clientSecret: stored.secret } : given;
  const result = schema.safeParse(candidate);
  if (!result.success) {
    const issues = result.error.issues.map((issue) => ({
      path: ['config', ...issue.path.map(String)].join('.'),
      message: issue.message,
    }));
    throw errors.connector(
      'connector.invalid_config',
      `invalid config: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`,
      { issues },
    );
  }
  const parsed = result.data as { clientSecret: string } & Record<string, unknown>;
  return {
    parsed: result.data,
    config: { ...parsed, clientSecret: maskSecret(parsed.clientSecret) },
    secret: parsed.clientSecret,
  };
}

const DOMAIN = /^(?=.{1,253}$)(?!-)[a-z0-9-]{1,63}(?<!-)(\.(?!-)[a-z0-9-]{1,63}(?<!-))+$/;

/**
 * Social connectors (`/api/connectors`) and enterprise SSO connectors (`/api/sso-connectors`): configs checked
 * against their factory, secrets sealed at rest and masked in every answer, upstream discovery probed before
 * a config is kept, and the connector handed out ready to use.
 */
export function createConnectorsLibrary(deps: Deps & { secrets: SecretBox; upstreams: Upstreams }) {
  const { connectors, organizations } = deps;

  async function mustFindSocial(id: string): Promise<SocialConnector> {
    const found = await connectors.social.findById(id);
    if (!found) throw errors.notFound('connector', id);
    return found;
  }

  async function mustFindSso(id: string): Promise<SsoConnector> {
    const found = await connectors.sso.findById(id);
    if (!found) throw errors.notFound('SSO connector', id);
    return found;
  }

  /** Each sealed secret is bound to its connector's id: copied to another connector, it does not open. */
  function opened(sealed: string | undefined, id: string): string {
    const secret = sealed && deps.secrets.open(sealed, id);
    if (!secret)
      throw errors.connector(
        'connector.invalid_config',
        'the stored client secret cannot be decrypted with the current COOKIE_KEYS: set it again',
      );
    return secret;
  }

  async function assertTargetFree(target: string, except?: string): Promise<void> {
    const holder = await connectors.social.findByTarget(target);
    if (holder && holder.id !== except) {
      throw errors.connector(
        'connector.multiple_target_with_same_platform',
        `another connector already serves target ${target}`,
      );
    }
  }

  async function assertDomainsFree(domains: readonly string[], except?: string): Promise<void> {
    const bad = domains.filter((domain) => !DOMAIN.test(domain));
    if (bad.length)
      throw errors.connector('single_sign_on.invalid_domain_format', `not email domains: ${bad.join(', ')}`, {
        domains: bad,
      });
    const taken = (await connectors.sso.findByDomains(domains)).filter((connector) => connector.id !== except);
    if (taken.length) {
      const used = domains.filter((domain) => taken.some((connector) => connector.domains.includes(domain)));
      throw errors.connector(
        'single_sign_on.duplicated_domains',
        `another SSO connector already serves ${used.join(', ')}`,
        { domains: used },
      );
    }
  }

  async function assertNameFree(connectorName: string, except?: string): Promise<void> {
    const holder = await connectors.sso.findByName(connectorName);
    if (holder && holder.id !== except)
      throw errors.connector('single_sign_on.duplicate_connector_name', 'another SSO connector has this name');
  }

  const normalizedDomains = (domains: readonly string[]) => [
    ...new Set(domains.map((domain) => domain.trim().toLowerCase())),
  ];

  return {
    mustFindSocial,
    mustFindSso,
    listSocial: () => connectors.social.all(),

    async createSocial(input: NewSocialConnector): Promise<SocialConnector> {
      const factory = SOCIAL_FACTORIES[input.connectorId];
      const { parsed, config, secret } = checkedConfig(factory.schema, input.config);
      await assertTargetFree(input.metadata.target);
      await deps.upstreams.probe({ kind: input.connectorId, config: parsed, clientSecret: secret } as UsableConnector);
      const connector: SocialConnector = {
        id: input.id ?? newId(12),
        connectorId: input.connectorId,
        config,
        metadata: {
          target: input.metadata.target,
          name: input.metadata.name ?? { en: factory.name },
          logo: input.metadata.logo ?? null,
          logoDark: input.metadata.logoDark ?? null,
        },
        syncProfile: input.syncProfile ?? false,
        createdAt: Date.now(),
      };
      await unique('connector', null, () =>
        connectors.social.insert(connector, { clientSecretSealed: deps.secrets.seal(secret, connector.id) }),
      );
      return connector;
    },

    async updateSocial(id: string, changes: SocialConnectorChanges): Promise<SocialConnector> {
      const found = await connectors.social.findWithSecret(id);
      if (!found) throw errors.notFound('connector', id);
      const { connector } = found;
      const update: Partial<SocialConnector> = {};
      let sealed: string | undefined;
      if (changes.config) {
        const stored = { config: connector.config, secret: found.sealed && deps.secrets.open(found.sealed, id) };
        const { parsed, config, secret } = checkedConfig(
          SOCIAL_FACTORIES[connector.connectorId].schema,
          changes.config,
          stored,
        );
        await deps.upstreams.probe({
          kind: connector.connectorId,
          config: parsed,
          clientSecret: secret,
        } as UsableConnector);
        update.config = config;
        sealed = deps.secrets.seal(secret, id);
      }
      if (changes.metadata) {
        if (changes.metadata.target !== undefined) await assertTargetFree(changes.metadata.target, id);
        update.metadata = { ...connector.metadata, ...changes.metadata };
      }
      if (changes.syncProfile !== undefined) update.syncProfile = changes.syncProfile;
      const updated = await unique('connector', null, () => connectors.social.replace(id, update, sealed));
      if (!updated) throw errors.notFound('connector', id);
      return updated;
    },

    async deleteSocial(id: string): Promise<SocialConnector> {
      const deleted = await connectors.social.delete(id);
      if (!deleted) throw errors.notFound('connector', id);
      return deleted;
    },

    /** The social connector ready to sign in with; 404 for an unknown id. */
    async usableSocial(id: string): Promise<{ connector: SocialConnector; usable: UsableConnector }> {
      const found = await connectors.social.findWithSecret(id);
      if (!found) throw errors.notFound('connector', id);
      const { connector } = found;
      const parsed = SOCIAL_FACTORIES[connector.connectorId].schema.parse({
        ...connector.config,
        clientSecret: opened(found.sealed, id),
      });
      return {
        connector,
        usable: { kind: connector.connectorId, config: parsed, clientSecret: parsed.clientSecret } as UsableConnector,
      };
    },

    /** What a sign-in page offers: each social connector by name, and whether any enterprise connector is set up. */
    async choices(): Promise<{ social: Array<{ id: string; target: string; name: string }>; sso: boolean }> {
      const social = (await connectors.social.all()).map((connector) => ({
        id: connector.id,
        target: connector.metadata.target,
        name: connector.metadata.name.en ?? Object.values(connector.metadata.name)[0] ?? connector.metadata.target,
      }));
      return { social, sso: await connectors.sso.anyConfigured() };
    },

    listSso: (page: Page): Promise<PageResult<SsoConnector>> => connectors.sso.page(page),

    async createSso(input: NewSsoConnector): Promise<SsoConnector> {
      const domains = normalizedDomains(input.domains ?? []);
      await assertNameFree(input.connectorName);
      await assertDomainsFree(domains);
      const id = newId(12);
      let config: Record<string, unknown> = {};
      let sealed: string | undefined;
      if (input.config) {
        const checked = checkedConfig(ssoOidcConfig, input.config);
        await deps.upstreams.probe({ kind: 'sso', config: checked.parsed, clientSecret: checked.secret });
        config = checked.config;
        sealed = deps.secrets.seal(checked.secret, id);
      }
      const connector: SsoConnector = {
        id,
        providerName: input.providerName,
        connectorName: input.connectorName,
        config,
        domains,
        branding: input.branding ?? {},
        syncProfile: input.syncProfile ?? false,
        createdAt: Date.now(),
      };
      await unique('SSO connector', null, () =>
        connectors.sso.insert(connector, sealed ? { clientSecretSealed: sealed } : {}),
      );
      return connector;
    },

    async updateSso(id: string, changes: SsoConnectorChanges): Promise<SsoConnector> {
      const found = await connectors.sso.findWithSecret(id);
      if (!found) throw errors.notFound('SSO connector', id);
      const update: Partial<SsoConnector> = {};
      let sealed: string | undefined;
      if (changes.connectorName !== undefined) {
        await assertNameFree(changes.connectorName, id);
        update.connectorName = changes.connectorName;
      }
      if (changes.domains !== undefined) {
        update.domains = normalizedDomains(changes.domains);
        await assertDomainsFree(update.domains, id);
      }
      if (changes.config !== undefined) {
        const stored = { config: found.connector.config, secret: found.sealed && deps.secrets.open(found.sealed, id) };
        const checked = checkedConfig(ssoOidcConfig, changes.config, stored);
        await deps.upstreams.probe({ kind: 'sso', config: checked.parsed, clientSecret: checked.secret });
        update.config = checked.config;
        sealed = deps.secrets.seal(checked.secret, id);
      }
      if (changes.branding !== undefined) update.branding = changes.branding;
      if (changes.syncProfile !== undefined) update.syncProfile = changes.syncProfile;
      if (Object.keys(update).length === 0) return found.connector;
      const updated = await unique('SSO connector', null, () => connectors.sso.replace(id, update, sealed));
      if (!updated) throw errors.notFound('SSO connector', id);
      return updated;
    },

    /** Deletes the connector and its just-in-time links to organizations; users keep their SSO identities. */
    async deleteSso(id: string): Promise<SsoConnector> {
      await mustFindSso(id);
      await organizations.jitSsoConnectors.removeWhere({ ssoConnectorId: id });
      const deleted = await connectors.sso.delete(id);
      if (!deleted) throw errors.notFound('SSO connector', id);
      return deleted;
    },

    /** The enterprise connectors serving an email's domain (Logto's SSO lookup by email). */
    async ssoForEmail(email: string): Promise<SsoConnector[]> {
      const domain = email
        .slice(email.lastIndexOf('@') + 1)
        .trim()
        .toLowerCase();
      if (!domain || !email.includes('@')) return [];
      return (await connectors.sso.findByDomains([domain])).filter(
        (connector) => Object.keys(connector.config).length > 0,
      );
    },

    /** The enterprise connector ready to sign in with; 404 unknown, 400 `connector.invalid_config` when not configured yet. */
    async usableSso(id: string): Promise<{ connector: SsoConnector; usable: UsableConnector }> {
      const found = await connectors.sso.findWithSecret(id);
      if (!found) throw errors.notFound('SSO connector', id);
      if (!found.sealed) throw errors.connector('connector.invalid_config', 'this SSO connector has no config yet');
      const parsed = ssoOidcConfig.parse({ ...found.connector.config, clientSecret: opened(found.sealed, id) });
      return { connector: found.connector, usable: { kind: 'sso', config: parsed, clientSecret: parsed.clientSecret } };
    },
  };
}

export type ConnectorsLibrary = ReturnType<typeof createConnectorsLibrary>;
