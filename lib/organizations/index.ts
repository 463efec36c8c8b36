import type { EmitData } from '../events/operation.ts';
import type { DocumentStore } from '../ports/documents.ts';
import type { ApplicationsRepository } from '../applications/repository.ts';
import type { ConnectorsRepository } from '../connectors/repository.ts';
import type { MfaRepository } from '../mfa/repository.ts';
import type { ResourcesRepository } from '../resources/repository.ts';
import type { RolesRepository } from '../roles/repository.ts';
import type { UsersRepository } from '../users/repository.ts';
import { createOrganizationInvitationsLibrary } from './invitations.ts';
import { createOrganizationInvitationsRepository } from './invitations-repository.ts';
import { createOrganizationJitLibrary } from './jit.ts';
import { createOrganizationsLibrary } from './library.ts';
import { createOrganizationsRepository } from './repository.ts';
import { createOrganizationRolesRepository } from './roles-repository.ts';
import { createOrganizationScopesRepository } from './scopes-repository.ts';
import { createOrganizationTemplateLibrary } from './template.ts';

export function openOrganizationRecords(store: DocumentStore) {
  return {
    organizations: createOrganizationsRepository(store),
    organizationRoles: createOrganizationRolesRepository(store),
    organizationScopes: createOrganizationScopesRepository(store),
    organizationInvitations: createOrganizationInvitationsRepository(store),
  };
}

type OrganizationRecords = ReturnType<typeof openOrganizationRecords>;

/**
 * Organizations: their members and the members' roles; the template (organization roles and scopes); invitations;
 * just-in-time provisioning.
 */
export function createOrganizations(
  records: OrganizationRecords & {
    users: UsersRepository;
    applications: ApplicationsRepository;
    roles: RolesRepository;
    resources: ResourcesRepository;
    connectors: ConnectorsRepository;
    mfaVerifications: MfaRepository;
  },
  /** How its libraries state the data events of what they change. */
  emit: EmitData,
) {
  return {
    ...createOrganizationsLibrary({ ...records, emit }),
    /** Organization roles and scopes, shared by every organization. */
    template: createOrganizationTemplateLibrary({ ...records, emit }),
    invitations: createOrganizationInvitationsLibrary({ ...records, emit }),
    /** Just-in-time provisioning: email domains, default roles, enterprise connectors. */
    jit: createOrganizationJitLibrary({ ...records, emit }),
  };
}

export type Organizations = ReturnType<typeof createOrganizations>;
