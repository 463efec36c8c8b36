import { createApplicationsLibrary } from './applications/library.ts';
import { createOrganizationInvitationsLibrary } from './organizations/invitations.ts';
import { createOrganizationTemplateLibrary } from './organizations/template.ts';
import { createOrganizationsLibrary } from './organizations/library.ts';
import { createOrganizationJitLibrary } from './organizations/jit.ts';
import type { Repositories } from './repositories.ts';
import { createUsersLibrary } from './users/library.ts';
import { createSignInExperienceLibrary } from './sign-in-experience/library.ts';
import { createRolesLibrary } from './roles/library.ts';
import { createResourcesLibrary } from './resources/library.ts';

/** Domain logic above the repositories, shared by routes and extensions. */
export function createLibraries(repositories: Repositories, options: { defaultAccessTokenTtl: number }) {
  const signInExperience = createSignInExperienceLibrary(repositories.signInExperience);
  return {
    applications: createApplicationsLibrary(repositories),
    users: createUsersLibrary(repositories, signInExperience),
    roles: createRolesLibrary(repositories),
    resources: createResourcesLibrary(repositories, options),
    organizations: createOrganizationsLibrary(repositories),
    organizationTemplate: createOrganizationTemplateLibrary(repositories),
    organizationInvitations: createOrganizationInvitationsLibrary(repositories),
    organizationJit: createOrganizationJitLibrary(repositories),
    signInExperience,
  };
}

export type Libraries = ReturnType<typeof createLibraries>;
