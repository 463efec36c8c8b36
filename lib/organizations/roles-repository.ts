import type { DocumentStore } from '../ports/documents.ts';
import { createEntityRepository } from '../data/entity.ts';
import { createLinks } from '../data/links.ts';
import type { OrganizationRoleType } from './types.ts';

export interface OrganizationRole {
  id: string;
  name: string;
  description: string | null;
  type: OrganizationRoleType;
  createdAt: number;
}

/** Roles inside organizations (the organization template's roles), unique by name, with their scopes. */
export function createOrganizationRolesRepository(store: DocumentStore) {
  const { collection, operations } = createEntityRepository<OrganizationRole>(store, 'organization_roles', {
    searchFields: ['id', 'name', 'description'],
  });
  const scopes = createLinks(store, 'organization_roles_scopes', ['organizationRoleId'], 'organizationScopeId');

  return {
    ...operations,
    scopes,
    async prepare() {
      await collection.createIndex({ keys: { name: 1 }, unique: true });
      await scopes.prepare();
    },
  };
}

export type OrganizationRolesRepository = ReturnType<typeof createOrganizationRolesRepository>;
