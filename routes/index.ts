import type { ApiRouterDeps } from '../lib/http/api.ts';
import type { ServiceCore } from '../lib/core.ts';
import { applicationRoutes } from './applications/index.ts';
import { organizationInvitationRoutes } from './organization-invitations/index.ts';
import { organizationRoleRoutes } from './organization-roles/index.ts';
import { organizationScopeRoutes } from './organization-scopes/index.ts';
import { organizationRoutes } from './organizations/index.ts';
import { resourceRoutes } from './resources/index.ts';
import { roleRoutes } from './roles/index.ts';
import { signInExperienceRoutes } from './sign-in-experience/index.ts';
import { userRoutes } from './users/index.ts';
import { connectorRoutes } from './connectors/index.ts';
import { userMfaRoutes } from './mfa/management.ts';
import { accountMfaSecretRoutes } from './mfa/account.ts';
import { accountIdentityRoutes } from './connectors/account.ts';

/** The identity-data management routes (applications, resources, roles, users, organizations, …). */
/** The capabilities the management routes act through: nothing else of the service reaches them. */
type ManagementCapabilities = Pick<
  ServiceCore,
  | 'account'
  | 'applications'
  | 'connectors'
  | 'kv'
  | 'messaging'
  | 'mfa'
  | 'organizations'
  | 'resources'
  | 'roles'
  | 'signInExperience'
  | 'users'
>;

export function managementRoutes(api: ApiRouterDeps, core: ManagementCapabilities): void {
  applicationRoutes(api, core);
  resourceRoutes(api, core);
  roleRoutes(api, core);
  userRoutes(api, core);
  userMfaRoutes(api, core);
  organizationRoutes(api, core);
  organizationRoleRoutes(api, core);
  organizationScopeRoutes(api, core);
  organizationInvitationRoutes(api, core);
  signInExperienceRoutes(api, core);
  connectorRoutes(api, core);
  accountIdentityRoutes(api, core);
  accountMfaSecretRoutes(api, core);
}
