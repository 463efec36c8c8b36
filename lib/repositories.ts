import type { DocumentStore } from './ports/documents.ts';
import { createOidcRevocation } from './oidc/revocation.ts';
import { createApplicationsRepository } from './applications/repository.ts';
import { createOrganizationInvitationsRepository } from './organizations/invitations-repository.ts';
import { createOrganizationRolesRepository } from './organizations/roles-repository.ts';
import { createOrganizationScopesRepository } from './organizations/scopes-repository.ts';
import { createOrganizationsRepository } from './organizations/repository.ts';
import { createResourcesRepository } from './resources/repository.ts';
import { createRolesRepository } from './roles/repository.ts';
import { createUsersRepository } from './users/repository.ts';
import { createSignInExperienceRepository } from './sign-in-experience/repository.ts';
import { createConnectorsRepository } from './connectors/repository.ts';
import { createIdentitiesRepository } from './connectors/identities-repository.ts';
import { createMfaRepository } from './mfa/repository.ts';

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
    signInExperience: createSignInExperienceRepository(store),
    connectors: createConnectorsRepository(store),
    /** Social and enterprise identities of users, unique to one user each. */
    identities: createIdentitiesRepository(store),
    /** Users' second factors (TOTP, backup codes, WebAuthn). */
    mfaVerifications: createMfaRepository(store),
    /** Sessions, grants and tokens of node-oidc-provider, for ending a user's access. */
    oidcRevocation: createOidcRevocation(store),
  };
}

export type Repositories = ReturnType<typeof createRepositories>;

/** Creates the indexes every repository relies on (idempotent). */
export async function prepareRepositories(repositories: Repositories): Promise<void> {
  for (const repository of Object.values(repositories)) await repository.prepare();
}
