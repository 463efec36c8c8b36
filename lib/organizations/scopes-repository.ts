import type { DocumentStore } from '../ports/documents.ts';
import { findPage, publicShape, searchFilter, type Page, type PageResult, type Stored } from '../data/entity.ts';

export interface OrganizationScope {
  id: string;
  name: string;
  description: string | null;
  createdAt: number;
}

/** Permissions inside organizations (the organization template's scopes), unique by name. */
export function createOrganizationScopesRepository(store: DocumentStore) {
  const scopes = store.collection<Stored<OrganizationScope>>('organization_scopes');
  const present = (doc: Stored<OrganizationScope>) => publicShape<OrganizationScope>(doc);

  return {
    async prepare() {
      await scopes.createIndex({ keys: { name: 1 }, unique: true });
    },
    async insert(scope: OrganizationScope): Promise<OrganizationScope> {
      await scopes.insertOne({ ...scope, _id: scope.id });
      return scope;
    },
    async findById(id: string) {
      const doc = await scopes.findOne({ _id: id });
      return doc ? present(doc) : null;
    },
    async findByIds(ids: readonly string[]): Promise<OrganizationScope[]> {
      if (ids.length === 0) return [];
      return (await scopes.find({ _id: { $in: [...ids] } }, { sort: { createdAt: 1, _id: 1 } })).map(present);
    },
    async list(page: Page, search?: string): Promise<PageResult<OrganizationScope>> {
      const { items, total } = await findPage(scopes, searchFilter(search, ['id', 'name', 'description']), page);
      return { items: items.map(present), total };
    },
    async update(id: string, changes: Partial<OrganizationScope>) {
      const doc = await scopes.findOneAndUpdate({ _id: id }, { $set: changes }, { returnDocument: 'after' });
      return doc ? present(doc) : null;
    },
    async delete(id: string) {
      const doc = await scopes.findOneAndDelete({ _id: id });
      return doc ? present(doc) : null;
    },
  };
}

export type OrganizationScopesRepository = ReturnType<typeof createOrganizationScopesRepository>;
