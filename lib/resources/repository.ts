import type { DocumentStore } from '../ports/documents.ts';
import { remembered } from '../data/remembered.ts';
import {
  createEntityRepository,
  findPage,
  searchFilter,
  type Page,
  type PageResult,
  type SearchInput,
} from '../data/entity.ts';

export interface Resource {
  id: string;
  name: string;
  indicator: string;
  isDefault: boolean;
  /** Access token lifetime for this resource, seconds. */
  accessTokenTtl: number;
  createdAt: number;
}

export interface Scope {
  id: string;
  resourceId: string;
  name: string;
  description: string | null;
  createdAt: number;
}

/** API resources and their scopes; the built-in management API resource is marked `builtIn`. */
export function createResourcesRepository(store: DocumentStore) {
  const resources = createEntityRepository<Resource, { builtIn: boolean }>(store, 'resources', {
    searchFields: ['name', 'indicator'],
    hidden: ['builtIn'],
  });
  const scopes = createEntityRepository<Scope>(store, 'scopes', { searchFields: ['id', 'name', 'description'] });
  const presentScopeOrNull = (doc: Parameters<typeof scopes.present>[0] | null) => (doc ? scopes.present(doc) : null);

  return {
    ...resources.operations,
    async prepare() {
      await resources.collection.createIndex({ keys: { indicator: 1 }, unique: true });
      await scopes.collection.createIndex({ keys: { resourceId: 1, name: 1 }, unique: true });
    },
    // Read by every token request for a resource: remembered until a resource changes (see remembered).
    findByIndicator: remembered(store, ['resources'], async (indicator: string): Promise<Resource | null> => {
      const doc = await resources.collection.findOne({ indicator });
      return doc ? resources.present(doc) : null;
    }),
    findDefault: remembered(store, ['resources'], async (): Promise<Resource | null> => {
      const doc = await resources.collection.findOne({ isDefault: true });
      return doc ? resources.present(doc) : null;
    }),
    /** Makes every resource but `id` non-default. */
    async clearDefaultExcept(id: string): Promise<void> {
      await resources.collection.updateMany({ isDefault: true, _id: { $ne: id } }, { $set: { isDefault: false } });
    },
    /**
     * Creates a built-in resource, or points the existing one at `resource.indicator` (the management API's
     * follows BASE_URL); the rest of a stored one is left as operators changed it.
     */
    async upsertBuiltIn(resource: Resource): Promise<void> {
      const { id, indicator, ...initial } = resource;
      await resources.collection.updateOne(
        { _id: id },
        { $set: { indicator, builtIn: true }, $setOnInsert: { id, ...initial } },
        { upsert: true },
      );
    },
    async isBuiltIn(id: string): Promise<boolean> {
      return (await resources.collection.countDocuments({ _id: id, builtIn: true })) > 0;
    },
    list: (page: Page, search?: SearchInput) => resources.operations.list(page, search),
    async scopesOfResources(resourceIds: readonly string[]): Promise<Scope[]> {
      if (resourceIds.length === 0) return [];
      const docs = await scopes.collection.find(
        { resourceId: { $in: [...resourceIds] } },
        { sort: { createdAt: 1, _id: 1 } },
      );
      return docs.map(scopes.present);
    },

    insertScope: scopes.operations.insert,
    findScopesByIds: scopes.operations.findByIds,
    async scopeIdsOfResource(resourceId: string): Promise<string[]> {
      return (await scopes.collection.find({ resourceId }, { projection: { _id: 1 } })).map((doc) => doc._id);
    },
    /** A page of the scopes among `ids` matching `search` (a role's scopes, searched as Logto does). */
    async listScopesAmong(ids: readonly string[], page: Page, search?: SearchInput): Promise<PageResult<Scope>> {
      const filter = { $and: [{ _id: { $in: [...ids] } }, searchFilter(search, ['id', 'name', 'description'])] };
      const { items, total } = await findPage(scopes.collection, filter, page);
      return { items: items.map(scopes.present), total };
    },
    async listScopes(resourceId: string, page: Page, search?: SearchInput): Promise<PageResult<Scope>> {
      const filter = { $and: [{ resourceId }, searchFilter(search, ['id', 'name', 'description'])] };
      const { items, total } = await findPage(scopes.collection, filter, page);
      return { items: items.map(scopes.present), total };
    },
    async updateScope(resourceId: string, scopeId: string, changes: Partial<Scope>): Promise<Scope | null> {
      return presentScopeOrNull(
        await scopes.collection.findOneAndUpdate(
          { _id: scopeId, resourceId },
          { $set: changes },
          { returnDocument: 'after' },
        ),
      );
    },
    async deleteScope(resourceId: string, scopeId: string): Promise<Scope | null> {
      return presentScopeOrNull(await scopes.collection.findOneAndDelete({ _id: scopeId, resourceId }));
    },
    async deleteScopesOf(resourceId: string): Promise<void> {
      await scopes.collection.deleteMany({ resourceId });
    },
  };
}

export type ResourcesRepository = ReturnType<typeof createResourcesRepository>;
