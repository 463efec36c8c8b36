import { createApplicationsLibrary } from './applications.ts';
import { createOrganizationInvitationsLibrary } from './organization-invitations.ts';
import { createOrganizationTemplateLibrary } from './organization-template.ts';
import { createOrganizationsLibrary } from './organizations.ts';
import type { Repositories } from './repositories/index.ts';
import { createUsersLibrary } from './users.ts';

/** Domain logic above the repositories, shared by routes and extensions. */
export function createLibraries(repositories: Repositories) {
  return {
    applications: createApplicationsLibrary(repositories),
    users: createUsersLibrary(repositories),
    organizations: createOrganizationsLibrary(repositories),
    organizationTemplate: createOrganizationTemplateLibrary(repositories),
    organizationInvitations: createOrganizationInvitationsLibrary(repositories),
  };
}

export type Libraries = ReturnType<typeof createLibraries>;
