import { stampEvent } from '../events/bus.ts';
import { isDataEvent, isInteractionEvent, type EventName } from '../events/catalogue.ts';
import {
  numberedEvent,
  type ApplicationSummary,
  type EventContext,
  type EventPayloads,
  type InteractionPayload,
  type ManagementContext,
  type RecordedEvent,
} from '../events/payloads.ts';
import type { Organization } from '../organizations/repository.ts';
import type { OrganizationRole } from '../organizations/roles-repository.ts';
import type { OrganizationScope } from '../organizations/scopes-repository.ts';
import type { Scope } from '../resources/repository.ts';
import type { Role } from '../roles/repository.ts';
import type { User } from '../users/repository.ts';

/**
 * Sample events for `POST /api/hooks/:id/test`: one per event name, shaped like the real thing (see
 * docs/webhooks.md) with obviously fake values, so a consumer can exercise its parsing end to end.
 */
const SAMPLE_USER: User = {
  id: 'sample-user-id',
  username: 'sample_user',
  primaryEmail: 'user@example.com',
  primaryPhone: null,
  name: 'Sample User',
  avatar: null,
  customData: {},
  identities: {},
  profile: {},
  isSuspended: false,
  hasPassword: true,
  lastSignInAt: null,
  createdAt: 0,
  updatedAt: 0,
  applicationId: 'sample-application-id',
};

const SAMPLE_APPLICATION: ApplicationSummary = {
  id: 'sample-application-id',
  type: 'Traditional',
  name: 'Sample application',
  description: null,
};

const ROLE: Role = {
  id: 'sample-role-id',
  name: 'sample-role',
  description: 'A sample role',
  type: 'User',
  isDefault: false,
  createdAt: 0,
};
const SCOPE: Scope = {
  id: 'sample-scope-id',
  resourceId: 'sample-resource-id',
  name: 'read:sample',
  description: 'A sample scope',
  createdAt: 0,
};
const ORGANIZATION: Organization = {
  id: 'sample-organization-id',
  name: 'Sample organization',
  description: null,
  customData: {},
  isMfaRequired: false,
  createdAt: 0,
};
const ORGANIZATION_ROLE: OrganizationRole = {
  id: 'sample-organization-role-id',
  name: 'member',
  description: 'A sample organization role',
  type: 'User',
  createdAt: 0,
};
const ORGANIZATION_SCOPE: OrganizationScope = {
  id: 'sample-organization-scope-id',
  name: 'read:members',
  description: 'A sample organization scope',
  createdAt: 0,
};

const SIGNED_IN: InteractionPayload = { userId: SAMPLE_USER.id, user: SAMPLE_USER, application: SAMPLE_APPLICATION };

const PAYLOADS: EventPayloads = {
  PostRegister: SIGNED_IN,
  PostSignIn: SIGNED_IN,
  PostResetPassword: SIGNED_IN,
  'User.Created': { data: SAMPLE_USER },
  'User.Deleted': { data: SAMPLE_USER },
  'User.Data.Updated': { data: SAMPLE_USER },
  'User.SuspensionStatus.Updated': { data: { ...SAMPLE_USER, isSuspended: true } },
  'Role.Created': { data: ROLE },
  'Role.Deleted': { data: ROLE },
  'Role.Data.Updated': { data: ROLE },
  'Role.Scopes.Updated': { data: [SCOPE], roleId: ROLE.id },
  'Scope.Created': { data: SCOPE },
  'Scope.Deleted': { data: SCOPE },
  'Scope.Data.Updated': { data: SCOPE },
  'Organization.Created': { data: ORGANIZATION },
  'Organization.Deleted': { data: ORGANIZATION },
  'Organization.Data.Updated': { data: ORGANIZATION },
  // Membership changes carry their delta at the top level, as Logto sends them.
  'Organization.Membership.Updated': {
    data: ORGANIZATION,
    organizationId: ORGANIZATION.id,
    addedUserIds: [SAMPLE_USER.id],
  },
  'OrganizationRole.Created': { data: ORGANIZATION_ROLE },
  'OrganizationRole.Deleted': { data: ORGANIZATION_ROLE },
  'OrganizationRole.Data.Updated': { data: ORGANIZATION_ROLE },
  'OrganizationRole.Scopes.Updated': { data: [ORGANIZATION_SCOPE], organizationRoleId: ORGANIZATION_ROLE.id },
  'OrganizationScope.Created': { data: ORGANIZATION_SCOPE },
  'OrganizationScope.Deleted': { data: ORGANIZATION_SCOPE },
  'OrganizationScope.Data.Updated': { data: ORGANIZATION_SCOPE },
  'Identifier.Lockout': { type: 'email', value: 'user@example.com' },
  'Message.RateLimited': { action: 'SignIn', recipient: 'user@example.com' },
  'Grant.LimitExceeded': {
    userId: SAMPLE_USER.id,
    applicationId: SAMPLE_APPLICATION.id,
    revokedGrantIds: ['sample-grant-id'],
    maxAllowedGrants: 1,
    preRevocationActiveGrantCount: 2,
  },
  'User.Impersonated': {
    impersonationId: 'sample-impersonation-id',
    userId: SAMPLE_USER.id,
    applicationId: SAMPLE_APPLICATION.id,
    actorUserId: 'sample-actor-id',
    reason: 'Support ticket SUP-42',
    resource: 'https://api.example.com',
    scope: 'read',
    expiresAt: '2030-01-01T01:00:00.000Z',
  },
  'Impersonation.Revoked': {
    impersonationId: 'sample-impersonation-id',
    userId: SAMPLE_USER.id,
    applicationId: SAMPLE_APPLICATION.id,
    actorUserId: 'sample-actor-id',
    resource: 'https://api.example.com',
    revokedBy: 'sample-admin-client',
    revokedAt: '2030-01-01T00:10:00.000Z',
    expiresAt: '2030-01-01T01:00:00.000Z',
  },
};

/** The route each entity's events come from, by the event name's first part. */
const ROUTES: Record<string, string> = {
  User: '/users/:userId',
  Role: '/roles/:id',
  Scope: '/resources/:resourceId/scopes/:scopeId',
  Organization: '/organizations/:id',
  OrganizationRole: '/organization-roles/:id',
  OrganizationScope: '/organization-scopes/:id',
};

const ACTION_METHOD: Record<string, string> = { Created: 'POST', Deleted: 'DELETE' };

function managementContext(event: EventName): ManagementContext {
  const [entity = '', ...rest] = event.split('.');
  const action = rest.join('.');
  const route = ROUTES[entity];
  if (!route) throw new Error(`no sample for ${event}`);
  const membership = action === 'Membership.Updated';
  const matchedRoute = membership
    ? '/organizations/:id/users'
    : action === 'Created'
      ? route.replace(/\/:\w+$/, '')
      : route;
  const params = Object.fromEntries([...matchedRoute.matchAll(/:(\w+)/g)].map(([, name]) => [name, `sample-${name}`]));
  return {
    ip: '192.0.2.1',
    userAgent: 'sample-client/1.0',
    path: matchedRoute.replace(/:(\w+)/g, 'sample-$1'),
    method: membership ? 'POST' : (ACTION_METHOD[action] ?? 'PATCH'),
    status: action === 'Created' || membership ? 201 : action === 'Deleted' ? 204 : 200,
    params,
    matchedRoute,
  };
}

function contextOf(event: EventName): EventContext<EventName> {
  if (isInteractionEvent(event))
    return { sessionId: 'sample-session-id', userIp: '192.0.2.1', userAgent: 'Mozilla/5.0 (sample)' };
  return isDataEvent(event) ? managementContext(event) : { ip: '192.0.2.1', userAgent: 'Mozilla/5.0 (sample)' };
}

/** A sample numbered as recorded events are: sequence 0 (no recorded event has it), version 1 for data events. */
export function sampleEvent(event: EventName, createdAt = new Date()): RecordedEvent {
  return numberedEvent(
    stampEvent(event, PAYLOADS[event], contextOf(event), createdAt),
    0,
    isDataEvent(event) ? 1 : null,
  );
}
