import type { DocumentStore } from '../ports/documents.ts';
import { findPage, publicShape, searchFilter, type Page, type PageResult, type Stored } from '../data/entity.ts';
import { createLinks } from '../data/links.ts';

export interface Organization {
  id: string;
  name: string;
  description: string | null;
  customData: Record<string, unknown>;
  isMfaRequired: boolean;
  createdAt: number;
}

/** Organizations and what hangs off them: member users and applications, member roles, JIT email domains. */
export function createOrganizationsRepository(store: DocumentStore) {
  const organizations = store.collection<Stored<Organization>>('organizations');
  const present = (doc: Stored<Organization>) => publicShape<Organization>(doc);
  const relations = {
    users: createLinks(store, 'organizations_users', ['organizationId'], 'userId'),
    applications: createLinks(store, 'organizations_applications', ['organizationId'], 'applicationId'),
    /** Organization roles of a member, per organization. */
    userRoles: createLinks(store, 'organizations_users_roles', ['organizationId', 'userId'], 'organizationRoleId'),
    jitEmailDomains: createLinks(store, 'organizations_jit_email_domains', ['organizationId'], 'emailDomain'),
  };

  return {
    ...relations,
    async prepare() {
      await organizations.createIndex({ keys: { createdAt: 1 } });
      for (const relation of Object.values(relations)) await relation.prepare();
    },
    async insert(organization: Organization): Promise<Organization> {
      await organizations.insertOne({ ...organization, _id: organization.id });
      return organization;
    },
    async findById(id: string) {
      const doc = await organizations.findOne({ _id: id });
      return doc ? present(doc) : null;
    },
    async findByIds(ids: readonly string[]): Promise<Organization[]> {
      if (ids.length === 0) return [];
      return (await organizations.find({ _id: { $in: [...ids] } }, { sort: { createdAt: 1, _id: 1 } })).map(present);
    },
    async list(page: Page, search?: string): Promise<PageResult<Organization>> {
      const { items, total } = await findPage(organizations, searchFilter(search, ['id', 'name', 'description']), page);
      return { items: items.map(present), total };
    },
    async update(id: string, changes: Partial<Organization>) {
      const doc = await organizations.findOneAndUpdate({ _id: id }, { $set: changes }, { returnDocument: 'after' });
      return doc ? present(doc) : null;
    },
    /** Deletes the organization and every relation it owns. */
    async delete(id: string) {
      const doc = await organizations.findOneAndDelete({ _id: id });
      if (!doc) return null;
      for (const relation of Object.values(relations)) await relation.removeWhere({ organizationId: id });
      return present(doc);
    },
    /** Forgets a deleted user everywhere: memberships and member roles. */
    async removeUserEverywhere(userId: string): Promise<void> {
      await relations.users.removeWhere({ userId });
      await relations.userRoles.removeWhere({ userId });
    },
  };
}

export type OrganizationsRepository = ReturnType<typeof createOrganizationsRepository>;
