import type { DocumentStore, Filter } from '../ports/documents.ts';
import type { ApplicationType } from './types.ts';
import { createEntityRepository, type Page, type PageResult, type SearchInput } from '../data/entity.ts';

export interface ApplicationFilter {
  search?: SearchInput;
  types?: ApplicationType[];
  isThirdParty?: boolean;
  excludeIds?: string[];
  /** Only these applications. */
  ids?: string[];
}

export interface CustomClientMetadata {
  /** Token exchange (impersonation) is off until an application enables it. */
  allowTokenExchange?: boolean;
  /** Past this many active grants for one user, the oldest are revoked (Grant.LimitExceeded). */
  maxAllowedGrants?: number;
  corsAllowedOrigins?: string[];
  idTokenTtl?: number;
  refreshTokenTtlInDays?: number;
  /** Logto's refresh token lifetime in seconds; `refreshTokenTtlInDays` wins when both are set. */
  refreshTokenTtl?: number;
  rotateRefreshToken?: boolean;
  alwaysIssueRefreshToken?: boolean;
}

export interface Application {
  id: string;
  name: string;
  description: string | null;
  type: ApplicationType;
  /** `logoUri`: the application's logo, shown on the sign-in pages (an absolute http(s) URL). */
  oidcClientMetadata: { redirectUris: string[]; postLogoutRedirectUris: string[]; logoUri?: string };
  customClientMetadata: CustomClientMetadata;
  isThirdParty: boolean;
  createdAt: number;
}

/** Stored beside the application: a digest of the secret (never the secret itself), and the built-in marker. */
export interface ApplicationSecrets {
  secretDigest: string | null;
  builtIn?: boolean;
}

export function createApplicationsRepository(store: DocumentStore) {
  const { collection, present, operations } = createEntityRepository<Application, ApplicationSecrets>(
    store,
    'applications',
    {
      searchFields: ['id', 'name', 'description'],
      hidden: ['secretDigest', 'builtIn'],
    },
  );

  return {
    ...operations,
    async prepare() {
      await collection.createIndex({ keys: { createdAt: 1 } });
    },
    /** The application with its secret digest, for client authentication. */
    async findForClient(id: string): Promise<(Application & { secretDigest: string | null }) | null> {
      const doc = await collection.findOne({ _id: id });
      return doc ? { ...present(doc), secretDigest: doc.secretDigest ?? null } : null;
    },
    list(page: Page, filter: ApplicationFilter): Promise<PageResult<Application>> {
      const query: Filter = {};
      if (filter.ids) query._id = { $in: filter.ids };
      else if (filter.excludeIds?.length) query._id = { $nin: filter.excludeIds };
      if (filter.types?.length) query.type = { $in: filter.types };
      if (filter.isThirdParty !== undefined) query.isThirdParty = filter.isThirdParty;
      return operations.list(page, filter.search, query);
    },
    async setSecretDigest(id: string, secretDigest: string): Promise<boolean> {
      const result = await collection.updateOne({ _id: id }, { $set: { secretDigest } });
      return result.matchedCount === 1;
    },
    async isBuiltIn(id: string): Promise<boolean> {
      return (await collection.countDocuments({ _id: id, builtIn: true })) > 0;
    },
  };
}

export type ApplicationsRepository = ReturnType<typeof createApplicationsRepository>;
