import type { DocumentStore } from '../ports/documents.ts';
import { findPage, publicShape, searchFilter, type Page, type PageResult, type Stored } from '../data/entity.ts';
import { createLinks } from '../data/links.ts';

export const ORGANIZATION_ROLE_TYPES = ['User', 'MachineToMachine'] as const;
export type OrganizationRoleType = (typeof ORGANIZATION_ROLE_TYPES)[number];

export interface OrganizationRole {
  id: string;
  name: string;
  description: string | null;
  type: OrganizationRoleType;
  createdAt: number;
}

/** Roles inside organizations (the organization template's roles), unique by name, with their scopes. */
export function createOrganizationRolesRepository(store: DocumentStore) {
  const roles = store.collection<Stored<OrganizationRole>>('organization_roles');
  const present = (doc: Stored<OrganizationRole>) => publicShape<OrganizationRole>(doc);
  const scopes = createLinks(store, 'organization_roles_scopes', ['organizationRoleId'], 'organizationScopeId');

  return {
    scopes,
    async prepare() {
      await roles.createIndex({ keys: { name: 1 }, unique: true });
      await scopes.prepare();
    },
    async insert(role: OrganizationRole): Promise<OrganizationRole> {
      await roles.insertOne({ ...role, _id: role.id });
      return role;
    },
    async findById(id: string) {
      const doc = await roles.findOne({ _id: id });
      return doc ? present(doc) : null;
    },
    async findByIds(ids: readonly string[]): Promise<OrganizationRole[]> {
      if (ids.length === 0) return [];
      return (await roles.find({ _id: { $in: [...ids] } }, { sort: { createdAt: 1, _id: 1 } })).map(present);
    },
    async list(page: Page, search?: string): Promise<PageResult<OrganizationRole>> {
      const { items, total } = await findPage(roles, searchFilter(search, ['id', 'name', 'description']), page);
      return { items: items.map(present), total };
    },
    async update(id: string, changes: Partial<OrganizationRole>) {
      const doc = await roles.findOneAndUpdate({ _id: id }, { $set: changes }, { returnDocument: 'after' });
      return doc ? present(doc) : null;
    },
    /** Deletes the role and its scope links (member links are the organizations repository's). */
    async delete(id: string) {
      const doc = await roles.findOneAndDelete({ _id: id });
      if (!doc) return null;
      await scopes.removeWhere({ organizationRoleId: id });
      return present(doc);
    },
  };
}

export type OrganizationRolesRepository = ReturnType<typeof createOrganizationRolesRepository>;
