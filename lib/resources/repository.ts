import type { DocumentStore } from '../ports/documents.ts';
import { findPage, publicShape, searchFilter, type Page, type PageResult, type Stored } from '../data/entity.ts';

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

type StoredResource = Stored<Resource> & { builtIn?: boolean };

export function createResourcesRepository(store: DocumentStore) {
  const resources = store.collection<StoredResource>('resources');
  const scopes = store.collection<Stored<Scope>>('scopes');
  const presentResource = (doc: StoredResource) => publicShape<Resource>(doc, ['builtIn']);
  const presentScope = (doc: Stored<Scope>) => publicShape<Scope>(doc);

  return {
    async prepare() {
      await resources.createIndex({ keys: { indicator: 1 }, unique: true });
      await scopes.createIndex({ keys: { resourceId: 1, name: 1 }, unique: true });
    },
    async insert(resource: Resource, builtIn = false): Promise<Resource> {
      await resources.insertOne({ ...resource, _id: resource.id, ...(builtIn ? { builtIn } : {}) });
      return resource;
    },
    async findById(id: string) {
      const doc = await resources.findOne({ _id: id });
      return doc ? presentResource(doc) : null;
    },
    async findByIndicator(indicator: string) {
      const doc = await resources.findOne({ indicator });
      return doc ? presentResource(doc) : null;
    },
    async isBuiltIn(id: string) {
      return (await resources.countDocuments({ _id: id, builtIn: true })) > 0;
    },
    async list(page: Page, search?: string): Promise<PageResult<Resource>> {
      const { items, total } = await findPage(resources, searchFilter(search, ['name', 'indicator']), page);
      return { items: items.map(presentResource), total };
    },
    async update(id: string, changes: Partial<Resource>) {
      const doc = await resources.findOneAndUpdate({ _id: id }, { $set: changes }, { returnDocument: 'after' });
      return doc ? presentResource(doc) : null;
    },
    /** Deletes the resource and its scopes; returns the resource and the ids of the removed scopes. */
    async delete(id: string) {
      const doc = await resources.findOneAndDelete({ _id: id });
      if (!doc) return null;
      const removed = await scopes.find({ resourceId: id }, { projection: { _id: 1 } });
      await scopes.deleteMany({ resourceId: id });
      return { resource: presentResource(doc), scopeIds: removed.map((scope) => scope._id) };
    },

    async insertScope(scope: Scope): Promise<Scope> {
      await scopes.insertOne({ ...scope, _id: scope.id });
      return scope;
    },
    async findScope(resourceId: string, scopeId: string) {
      const doc = await scopes.findOne({ _id: scopeId, resourceId });
      return doc ? presentScope(doc) : null;
    },
    async findScopesByIds(ids: string[]): Promise<Scope[]> {
      if (ids.length === 0) return [];
      return (await scopes.find({ _id: { $in: ids } })).map(presentScope);
    },
    async listScopes(resourceId: string, page: Page, search?: string): Promise<PageResult<Scope>> {
      const filter = { resourceId, ...searchFilter(search, ['name', 'description']) };
      const { items, total } = await findPage(scopes, filter, page);
      return { items: items.map(presentScope), total };
    },
    async updateScope(resourceId: string, scopeId: string, changes: Partial<Scope>) {
      const doc = await scopes.findOneAndUpdate({ _id: scopeId, resourceId }, { $set: changes }, { returnDocument: 'after' });
      return doc ? presentScope(doc) : null;
    },
    async deleteScope(resourceId: string, scopeId: string) {
      const doc = await scopes.findOneAndDelete({ _id: scopeId, resourceId });
      return doc ? presentScope(doc) : null;
    },
  };
}

export type ResourcesRepository = ReturnType<typeof createResourcesRepository>;
