import type { EventCase } from '../../support/management/event-case.ts';
import { invitationEventCases } from './invitations.cases.ts';
import { organizationRoleEventCases, organizationScopeEventCases } from './organization-template.cases.ts';
import { organizationEventCases } from './organizations.cases.ts';
import { roleEventCases, scopeEventCases } from './roles.cases.ts';
import { userEventCases } from './users.cases.ts';
import { accountEventCases } from './account.cases.ts';
import { identityEventCases } from './identities.cases.ts';
import { mfaEventCases } from './mfa.cases.ts';
import { accountMfaEventCases } from './account-mfa.cases.ts';
import { accountIdentityEventCases } from './account-identities.cases.ts';
import { accountPasskeyEventCases } from './account-passkeys.cases.ts';
import { organizationRoleResourceScopeEventCases } from '../../compat/part1-resource-scope-events.cases.ts';

/** Every row of the operation → event table, with at least one case each (checked by coverage.test.ts). */
export const EVENT_CASES: readonly EventCase[] = [
  ...userEventCases,
  ...accountEventCases,
  ...identityEventCases,
  ...mfaEventCases,
  ...accountMfaEventCases,
  ...accountIdentityEventCases,
  ...accountPasskeyEventCases,
  ...roleEventCases,
  ...scopeEventCases,
  ...organizationEventCases,
  ...invitationEventCases,
  ...organizationRoleEventCases,
  ...organizationRoleResourceScopeEventCases,
  ...organizationScopeEventCases,
];
