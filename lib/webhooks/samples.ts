import type { IdentityEvent } from '../events/bus.ts';
import { INTERACTION_EVENTS, type EventName } from '../events/catalogue.ts';

/**
 * Sample events for `POST /api/hooks/:id/test`: one per event name, shaped like the real thing (see
 * docs/webhooks.md) with obviously fake values, so a consumer can exercise its parsing end to end.
 */
const SAMPLE_USER = {
  id: 'sample-user-id',
  username: 'sample_user',
  primaryEmail: 'user@example.com',
  primaryPhone: null,
  name: 'Sample User',
  avatar: null,
  customData: {},
  identities: {},
  isSuspended: false,
  lastSignInAt: null,
  createdAt: 0,
  updatedAt: 0,
  applicationId: 'sample-application-id',
};

const SAMPLE_APPLICATION = {
  id: 'sample-application-id', type: 'Traditional', name: 'Sample application', description: null,
};

const ENTITIES: Record<string, { route: string; data: Record<string, unknown> }> = {
  User: { route: '/users/:userId', data: SAMPLE_USER },
  Role: {
    route: '/roles/:id',
    data: { id: 'sample-role-id', name: 'sample-role', description: 'A sample role', type: 'User', isDefault: false, createdAt: 0 },
  },
  Scope: {
    route: '/resources/:resourceId/scopes/:scopeId',
    data: { id: 'sample-scope-id', resourceId: 'sample-resource-id', name: 'read:sample', description: 'A sample scope', createdAt: 0 },
  },
  Organization: {
    route: '/organizations/:id',
    data: { id: 'sample-organization-id', name: 'Sample organization', description: null, customData: {}, createdAt: 0 },
  },
  OrganizationRole: {
    route: '/organization-roles/:id',
    data: { id: 'sample-organization-role-id', name: 'member', description: 'A sample organization role', type: 'User', createdAt: 0 },
  },
  OrganizationScope: {
    route: '/organization-scopes/:id',
    data: { id: 'sample-organization-scope-id', name: 'read:members', description: 'A sample organization scope', createdAt: 0 },
  },
};

const INTERACTION_OF: Record<string, string> = {
  PostRegister: 'Register', PostSignIn: 'SignIn', PostResetPassword: 'ForgotPassword',
};

const ACTION_METHOD: Record<string, string> = { Created: 'POST', Deleted: 'DELETE' };

export function sampleEvent(event: EventName, createdAt = new Date()): IdentityEvent {
  const base = { event, createdAt: createdAt.toISOString() };
  if ((INTERACTION_EVENTS as readonly string[]).includes(event)) {
    return {
      ...base,
      interactionEvent: INTERACTION_OF[event],
      sessionId: 'sample-session-id',
      userId: SAMPLE_USER.id,
      userIp: '192.0.2.1',
      userAgent: 'Mozilla/5.0 (sample)',
      user: SAMPLE_USER,
      application: SAMPLE_APPLICATION,
    };
  }
  const exception = exceptionFields(event);
  if (exception) return { ...base, userAgent: 'Mozilla/5.0 (sample)', ip: '192.0.2.1', ...exception };
  return { ...base, ...managementContext(event) };
}

function exceptionFields(event: EventName): Record<string, unknown> | undefined {
  switch (event) {
    case 'Identifier.Lockout':
      return { interactionEvent: 'SignIn', type: 'email', value: 'user@example.com' };
    case 'Message.RateLimited':
      return { action: 'SignIn', recipient: 'user@example.com' };
    case 'Grant.LimitExceeded':
      return {
        userId: SAMPLE_USER.id, applicationId: SAMPLE_APPLICATION.id, revokedGrantIds: ['sample-grant-id'],
        maxAllowedGrants: 1, preRevocationActiveGrantCount: 2,
      };
    default:
      return undefined;
  }
}

function managementContext(event: EventName): Record<string, unknown> {
  const [entity = '', ...rest] = event.split('.');
  const action = rest.join('.');
  const sample = ENTITIES[entity];
  if (!sample) throw new Error(`no sample for ${event}`);
  const membership = action === 'Membership.Updated';
  const matchedRoute = membership
    ? '/organizations/:id/users'
    : action === 'Created' ? sample.route.replace(/\/:\w+$/, '') : sample.route;
  const params = Object.fromEntries([...matchedRoute.matchAll(/:(\w+)/g)].map(([, name]) => [name, `sample-${name}`]));
  return {
    ip: '192.0.2.1',
    userAgent: 'sample-client/1.0',
    path: matchedRoute.replace(/:(\w+)/g, 'sample-$1'),
    method: membership ? 'POST' : ACTION_METHOD[action] ?? 'PATCH',
    status: action === 'Created' || membership ? 201 : action === 'Deleted' ? 204 : 200,
    params,
    matchedRoute,
    // Membership changes carry their delta at the top level, as Logto sends them.
    ...(membership ? { organizationId: 'sample-organization-id', addedUserIds: [SAMPLE_USER.id] } : {}),
    data: membership ? null : sample.data,
  };
}
