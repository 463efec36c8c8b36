import type { DocumentStore } from '../ports/documents.ts';
import { createOidcRevocation } from '../oidc/revocation.ts';
import { createApplicationsRepository } from './applications.ts';
import { createOrganizationInvitationsRepository } from './organization-invitations.ts';
import { createOrganizationRolesRepository } from './organization-roles.ts';
import { createOrganizationScopesRepository } from './organization-scopes.ts';
import { createOrganizationsRepository } from './organizations.ts';
import { createResourcesRepository } from './resources.ts';
import { createRolesRepository } from './roles.ts';
import { createUsersRepository } from './users.ts';

export function createRepositories(store: DocumentStore) {
  return {
    applications: createApplicationsRepository(store),
    resources: createResourcesRepository(store),
    roles: createRolesRepository(store),
    users: createUsersRepository(store),
    organizations: createOrganizationsRepository(store),
    organizationRoles: createOrganizationRolesRepository(store),
    organizationScopes: createOrganizationScopesRepository(store),
    organizationInvitations: createOrganizationInvitationsRepository(store),
    /** Sessions, grants and tokens of node-oidc-provider, for ending a user's access. */
    oidcRevocation: createOidcRevocation(store),
  };
}

export type Repositories = ReturnType<typeof createRepositories>;

/** Creates the indexes every repository relies on (idempotent). */
export async function prepareRepositories(repositories: Repositories): Promise<void> {
  for (const repository of Object.values(repositories)) await repository.prepare();
}
