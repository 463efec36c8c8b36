import type { DocumentStore } from '../ports/documents.ts';
import { findPage, publicShape, searchFilter, type Page, type PageResult, type Stored } from './entity.ts';

export const ROLE_TYPES = ['User', 'MachineToMachine'] as const;
export type RoleType = (typeof ROLE_TYPES)[number];

export interface Role extends Record<string, unknown> {
  id: string;
  name: string;
  description: string;
  type: RoleType;
  isDefault: boolean;
  createdAt: number;
}

interface Link extends Record<string, unknown> {
  _id: string;
}
type RoleScope = Link & { roleId: string; scopeId: string };
type UserRole = Link & { userId: string; roleId: string };
type ApplicationRole = Link & { applicationId: string; roleId: string };

/** Roles, their scopes, and who holds them (users and M2M applications). */
export function createRolesRepository(store: DocumentStore) {
  const roles = store.collection<Stored<Role>>('roles');
  const roleScopes = store.collection<RoleScope>('roles_scopes');
  const userRoles = store.collection<UserRole>('users_roles');
  const applicationRoles = store.collection<ApplicationRole>('applications_roles');
  const present = (doc: Stored<Role>) => publicShape<Role>(doc);

  return {
    async prepare() {
      await roles.createIndex({ keys: { name: 1 }, unique: true });
      await roleScopes.createIndex({ keys: { scopeId: 1 } });
      await roleScopes.createIndex({ keys: { roleId: 1 } });
      await userRoles.createIndex({ keys: { userId: 1 } });
      await userRoles.createIndex({ keys: { roleId: 1 } });
      await applicationRoles.createIndex({ keys: { applicationId: 1 } });
      await applicationRoles.createIndex({ keys: { roleId: 1 } });
    },
    async insert(role: Role): Promise<Role> {
      await roles.insertOne({ ...role, _id: role.id });
      return role;
    },
    async findById(id: string) {
      const doc = await roles.findOne({ _id: id });
      return doc ? present(doc) : null;
    },
    async findByIds(ids: string[]): Promise<Role[]> {
      if (ids.length === 0) return [];
      return (await roles.find({ _id: { $in: ids } }, { sort: { createdAt: 1 } })).map(present);
    },
    async list(page: Page, filter: { search?: string; type?: RoleType; excludeIds?: string[] }): Promise<PageResult<Role>> {
      const query: Record<string, unknown> = { ...searchFilter(filter.search, ['id', 'name', 'description']) };
      if (filter.type) query.type = filter.type;
      if (filter.excludeIds?.length) query._id = { $nin: filter.excludeIds };
      const { items, total } = await findPage(roles, query, page);
      return { items: items.map(present), total };
    },
    async defaults(type: RoleType): Promise<Role[]> {
      return (await roles.find({ isDefault: true, type })).map(present);
    },
    async update(id: string, changes: Partial<Role>) {
      const doc = await roles.findOneAndUpdate({ _id: id }, { $set: changes }, { returnDocument: 'after' });
      return doc ? present(doc) : null;
    },
    async delete(id: string) {
      const doc = await roles.findOneAndDelete({ _id: id });
      if (!doc) return null;
      await Promise.all([
        roleScopes.deleteMany({ roleId: id }),
        userRoles.deleteMany({ roleId: id }),
        applicationRoles.deleteMany({ roleId: id }),
      ]);
      return present(doc);
    },

    async scopeIdsOf(roleIds: string[]): Promise<string[]> {
      if (roleIds.length === 0) return [];
      const links = await roleScopes.find({ roleId: { $in: roleIds } });
      return [...new Set(links.map((link) => link.scopeId))];
    },
    /** Adds scopes to a role; returns the ids that were not linked before. */
    async addScopes(roleId: string, scopeIds: string[]): Promise<string[]> {
      const existing = new Set(await this.scopeIdsOf([roleId]));
      const added = [...new Set(scopeIds)].filter((id) => !existing.has(id));
      if (added.length) {
        await roleScopes.insertMany(added.map((scopeId) => ({ _id: `${roleId}:${scopeId}`, roleId, scopeId })));
      }
      return added;
    },
    async removeScope(roleId: string, scopeId: string): Promise<boolean> {
      return (await roleScopes.deleteOne({ roleId, scopeId })) === 1;
    },
    async removeScopeEverywhere(scopeIds: string[]): Promise<void> {
      if (scopeIds.length) await roleScopes.deleteMany({ scopeId: { $in: scopeIds } });
    },

    async roleIdsOfUser(userId: string): Promise<string[]> {
      return (await userRoles.find({ userId })).map((link) => link.roleId);
    },
    async userIdsOfRole(roleId: string): Promise<string[]> {
      return (await userRoles.find({ roleId })).map((link) => link.userId);
    },
    async assignToUser(userId: string, roleIds: string[]): Promise<string[]> {
      const existing = new Set(await this.roleIdsOfUser(userId));
      const added = [...new Set(roleIds)].filter((id) => !existing.has(id));
      if (added.length) await userRoles.insertMany(added.map((roleId) => ({ _id: `${userId}:${roleId}`, userId, roleId })));
      return added;
    },
    async removeFromUser(userId: string, roleId: string): Promise<boolean> {
      return (await userRoles.deleteOne({ userId, roleId })) === 1;
    },
    async removeAllOfUser(userId: string): Promise<void> {
      await userRoles.deleteMany({ userId });
    },

    async roleIdsOfApplication(applicationId: string): Promise<string[]> {
      return (await applicationRoles.find({ applicationId })).map((link) => link.roleId);
    },
    async assignToApplication(applicationId: string, roleIds: string[]): Promise<string[]> {
      const existing = new Set(await this.roleIdsOfApplication(applicationId));
      const added = [...new Set(roleIds)].filter((id) => !existing.has(id));
      if (added.length) {
        await applicationRoles.insertMany(added.map((roleId) => ({ _id: `${applicationId}:${roleId}`, applicationId, roleId })));
      }
      return added;
    },
    async removeFromApplication(applicationId: string, roleId: string): Promise<boolean> {
      return (await applicationRoles.deleteOne({ applicationId, roleId })) === 1;
    },
    async removeAllOfApplication(applicationId: string): Promise<void> {
      await applicationRoles.deleteMany({ applicationId });
    },
  };
}

export type RolesRepository = ReturnType<typeof createRolesRepository>;
