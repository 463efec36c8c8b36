import type { DocumentStore } from '../ports/documents.ts';
import { createApplicationsRepository } from './applications.ts';
import { createResourcesRepository } from './resources.ts';
import { createRolesRepository } from './roles.ts';
import { createUsersRepository } from './users.ts';

export function createRepositories(store: DocumentStore) {
  return {
    applications: createApplicationsRepository(store),
    resources: createResourcesRepository(store),
    roles: createRolesRepository(store),
    users: createUsersRepository(store),
  };
}

export type Repositories = ReturnType<typeof createRepositories>;

/** Creates the indexes every repository relies on (idempotent). */
export async function prepareRepositories(repositories: Repositories): Promise<void> {
  for (const repository of Object.values(repositories)) await repository.prepare();
}
