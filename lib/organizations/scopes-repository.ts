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
    /** The name of every organization scope (the template's permissions). */
    async names(): Promise<string[]> {
      return (await collection.find({}, { projection: { name: 1 } })).map((doc) => doc.name);
    },
  };
}

export type OrganizationScopesRepository = ReturnType<typeof createOrganizationScopesRepository>;
