import type { DocumentStore } from '../ports/documents.ts';
import { createEntityRepository } from '../data/entity.ts';

export interface OrganizationScope {
  id: string;
  name: string;
  description: string | null;
  createdAt: number;
}

/** Permissions inside organizations (the organization template's scopes), unique by name. */
export function createOrganizationScopesRepository(store: DocumentStore) {
  const { collection, operations } = createEntityRepository<OrganizationScope>(store, 'organization_scopes', {
    searchFields: ['id', 'name', 'description'],
  });

  return {
    ...operations,
    async prepare() {
      await collection.createIndex({ keys: { name: 1 }, unique: true });
    },
  };
}

