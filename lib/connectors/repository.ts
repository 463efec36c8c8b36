import type { DocumentStore } from '../ports/documents.ts';
import { createEntityRepository, publicShape, type Page, type PageResult } from '../data/entity.ts';
import type { SocialFactoryId } from './configs.ts';
import type { SsoConnector } from './sso-connector.ts';

/** Logto's localized phrase: `{ en: 'Name', … }`. */
export type I18nPhrases = Record<string, string>;

/** A social connector as stored: its config without the client secret, which is kept sealed beside it. */
export interface SocialConnector {
  id: string;
  /** The factory it was made from (`oidc`, `oauth2`), Logto's `connectorId`. */
  connectorId: SocialFactoryId;
  config: Record<string, unknown>;
  metadata: { target: string; name: I18nPhrases; logo: string | null; logoDark: string | null };
  syncProfile: boolean;
  createdAt: number;
}

/** The encrypted client secret (`secrets.ts`), never part of the API shape. */
export interface SealedSecret {
  clientSecretSealed?: string;
}

const HIDDEN = ['clientSecretSealed'];

/** Social and enterprise connectors. */
export function createConnectorsRepository(store: DocumentStore) {
  const social = createEntityRepository<SocialConnector, SealedSecret>(store, 'connectors', {
    searchFields: ['id'],
    hidden: HIDDEN,
  });
  const sso = createEntityRepository<SsoConnector, SealedSecret>(store, 'sso_connectors', {
    searchFields: ['id', 'connectorName'],
    hidden: HIDDEN,
  });

  function withSecret<T extends { id: string }>(repository: typeof social | typeof sso) {
    return async (id: string): Promise<{ connector: T; sealed: string | undefined } | null> => {
      const doc = await repository.collection.findOne({ _id: id });
      return doc ? { connector: publicShape<T>(doc, HIDDEN), sealed: doc.clientSecretSealed } : null;
    };
  }

  return {
    social: {
      ...social.operations,
      findWithSecret: withSecret<SocialConnector>(social),
      all: async (): Promise<SocialConnector[]> =>
        (await social.collection.find({}, { sort: { createdAt: 1, _id: 1 } })).map(social.present),
      async findByTarget(target: string): Promise<SocialConnector | null> {
        const doc = await social.collection.findOne({ 'metadata.target': target });
        return doc ? social.present(doc) : null;
      },
      async replace(id: string, changes: Partial<SocialConnector>, sealed?: string): Promise<SocialConnector | null> {
        const doc = await social.collection.findOneAndUpdate(
          { _id: id },
          { $set: { ...changes, ...(sealed && { clientSecretSealed: sealed }) } },
          { returnDocument: 'after' },
        );
        return doc ? social.present(doc) : null;
      },
    },
    sso: {
      ...sso.operations,
      findWithSecret: withSecret<SsoConnector>(sso),
      page: (page: Page): Promise<PageResult<SsoConnector>> => sso.operations.list(page),
      async anyConfigured(): Promise<boolean> {
        return (await sso.collection.findOne({ clientSecretSealed: { $exists: true } })) !== null;
      },
      async findByName(connectorName: string): Promise<SsoConnector | null> {
        const doc = await sso.collection.findOne({ connectorName });
        return doc ? sso.present(doc) : null;
      },
      async findByDomains(domains: readonly string[]): Promise<SsoConnector[]> {
        return (await sso.collection.find({ domains: { $in: [...domains] } }, { sort: { createdAt: 1, _id: 1 } })).map(
          sso.present,
        );
      },
      async replace(id: string, changes: Partial<SsoConnector>, sealed?: string): Promise<SsoConnector | null> {
        const doc = await sso.collection.findOneAndUpdate(
          { _id: id },
          { $set: { ...changes, ...(sealed && { clientSecretSealed: sealed }) } },
          { returnDocument: 'after' },
        );
        return doc ? sso.present(doc) : null;
      },
    },
    async prepare() {
      await social.collection.createIndex({ keys: { createdAt: 1 } });
      await social.collection.createIndex({ keys: { 'metadata.target': 1 }, unique: true });
      await sso.collection.createIndex({ keys: { createdAt: 1 } });
      await sso.collection.createIndex({ keys: { connectorName: 1 }, unique: true });
      await sso.collection.createIndex({ keys: { domains: 1 } });
    },
  };
}

export type ConnectorsRepository = ReturnType<typeof createConnectorsRepository>;
