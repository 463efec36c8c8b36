import type { DocumentStore } from '../ports/documents.ts';
import { findPage, publicShape, searchFilter, type Page, type PageResult, type Stored } from '../data/entity.ts';

export const APPLICATION_TYPES = ['MachineToMachine', 'Traditional', 'SPA', 'Native'] as const;
export type ApplicationType = (typeof APPLICATION_TYPES)[number];

export interface CustomClientMetadata {
  /** Token exchange (impersonation) is off until an application enables it. */
  allowTokenExchange?: boolean;
  /** Past this many active grants for one user, the oldest are revoked (Grant.LimitExceeded). */
  maxAllowedGrants?: number;
  corsAllowedOrigins?: string[];
  idTokenTtl?: number;
  refreshTokenTtlInDays?: number;
  rotateRefreshToken?: boolean;
  alwaysIssueRefreshToken?: boolean;
}

export interface Application {
  id: string;
  name: string;
  description: string | null;
  type: ApplicationType;
  oidcClientMetadata: { redirectUris: string[]; postLogoutRedirectUris: string[] };
  customClientMetadata: CustomClientMetadata;
  isThirdParty: boolean;
  createdAt: number;
}

/** Stored with a digest of the secret, never the secret itself. */
type StoredApplication = Stored<Application> & { secretDigest: string | null; builtIn?: boolean };

const HIDDEN = ['secretDigest', 'builtIn'] as const;

export function isConfidential(type: ApplicationType): boolean {
  return type === 'MachineToMachine' || type === 'Traditional';
}

export function createApplicationsRepository(store: DocumentStore) {
  const collection = store.collection<StoredApplication>('applications');
  const present = (doc: StoredApplication): Application => publicShape<Application>(doc, HIDDEN);

  return {
    async prepare() {
      await collection.createIndex({ keys: { createdAt: 1 } });
    },
    async insert(app: Application, secretDigest: string | null, builtIn = false): Promise<Application> {
      await collection.insertOne({ ...app, _id: app.id, secretDigest, ...(builtIn ? { builtIn } : {}) });
      return app;
    },
    async findById(id: string): Promise<Application | null> {
      const doc = await collection.findOne({ _id: id });
      return doc ? present(doc) : null;
    },
    /** The application with its secret digest, for client authentication. */
    async findForClient(id: string): Promise<(Application & { secretDigest: string | null }) | null> {
      const doc = await collection.findOne({ _id: id });
      return doc ? { ...present(doc), secretDigest: doc.secretDigest } : null;
    },
    async list(page: Page, filter: { search?: string; types?: ApplicationType[]; isThirdParty?: boolean }): Promise<PageResult<Application>> {
      const query: Record<string, unknown> = { ...searchFilter(filter.search, ['id', 'name', 'description']) };
      if (filter.types?.length) query.type = { $in: filter.types };
      if (filter.isThirdParty !== undefined) query.isThirdParty = filter.isThirdParty;
      const { items, total } = await findPage(collection, query, page);
      return { items: items.map(present), total };
    },
    async update(id: string, changes: Partial<Application>): Promise<Application | null> {
      const doc = await collection.findOneAndUpdate({ _id: id }, { $set: changes }, { returnDocument: 'after' });
      return doc ? present(doc) : null;
    },
    async setSecretDigest(id: string, secretDigest: string): Promise<boolean> {
      const result = await collection.updateOne({ _id: id }, { $set: { secretDigest } });
      return result.matchedCount === 1;
    },
    async isBuiltIn(id: string): Promise<boolean> {
      return (await collection.countDocuments({ _id: id, builtIn: true })) > 0;
    },
    async delete(id: string): Promise<Application | null> {
      const doc = await collection.findOneAndDelete({ _id: id });
      return doc ? present(doc) : null;
    },
  };
}

export type ApplicationsRepository = ReturnType<typeof createApplicationsRepository>;
