import type { RouteEventMap } from './route-events.ts';

const MEMBERSHIP = { event: 'Organization.Membership.Updated', note: 'only when the membership changed' } as const;
/** The whole user after the change, or no event when nothing changed. */
const USER_CHANGE = {
  event: 'User.Data.Updated',
  note: 'data is the whole user; only when something changed',
} as const;
/** The whole user after the update, changed or not, as Logto's management API announces it. */
const WHOLE_USER = { event: 'User.Data.Updated', note: 'data is the whole user; changed or not, as in Logto' } as const;
const RESOURCE_SCOPES = {
  event: 'OrganizationRole.Scopes.Updated',
  note: "data: the role's API-resource scopes after the change",
} as const;

/**
 * Which management operation publishes which webhook events, listed per operation in the OpenAPI document and in the
 * table `npm run docs:events` writes into docs/management-api.md. Keys are `"METHOD /route"` relative to `/api`,
 * exactly as the routes declare them. The events themselves are stated by the capabilities' libraries as they make
 * each change (see OperationEvents) and published by `routeEventsMiddleware` in the request's transaction, which
 * fails a request whose libraries stated an event its row does not list. The event tests run every row against the
 * service and check that the operation publishes exactly the events listed.
 */
export const MANAGEMENT_EVENTS = {
  'POST /resources/:resourceId/scopes': [{ event: 'Scope.Created' }],
  'PATCH /resources/:resourceId/scopes/:scopeId': [{ event: 'Scope.Data.Updated' }],
  'DELETE /resources/:resourceId/scopes/:scopeId': [{ event: 'Scope.Deleted' }],

  'POST /roles': [{ event: 'Role.Created' }, { event: 'Role.Scopes.Updated', note: 'when scopeIds is non-empty' }],
  'PATCH /roles/:id': [{ event: 'Role.Data.Updated' }],
  'DELETE /roles/:id': [{ event: 'Role.Deleted' }],
  'POST /roles/:id/scopes': [{ event: 'Role.Scopes.Updated' }],
  'DELETE /roles/:id/scopes/:scopeId': [{ event: 'Role.Scopes.Updated' }],

  'POST /users': [{ event: 'User.Created' }],
  'PATCH /users/:userId': [{ event: 'User.Data.Updated', note: 'changed or not, as in Logto' }],
  'PATCH /users/:userId/custom-data': [WHOLE_USER],
  'PATCH /users/:userId/profile': [WHOLE_USER],
  'PATCH /users/:userId/password': [{ event: 'User.Data.Updated' }],
  'PATCH /users/:userId/is-suspended': [{ event: 'User.SuspensionStatus.Updated' }],
  'DELETE /users/:userId': [{ event: 'User.Deleted', note: 'data is the entity as it was before the delete' }],
  'PUT /users/:userId/identities/:target': [{ event: 'User.Data.Updated', note: 'data is the whole user' }],
  'DELETE /users/:userId/identities/:target': [{ event: 'User.Data.Updated' }],
  'POST /users/:userId/mfa-verifications': [
    { event: 'User.Data.Updated', note: 'data is the user, never the secret or the codes' },
  ],
  'DELETE /users/:userId/mfa-verifications/:verificationId': [{ event: 'User.Data.Updated', note: 'data is the user' }],

  'POST /console/setup': [{ event: 'User.Created', note: 'the first console admin' }],

  'PATCH /my-account': [USER_CHANGE],
  'PATCH /my-account/profile': [USER_CHANGE],
  'POST /my-account/password': [USER_CHANGE],
  'POST /my-account/primary-email': [USER_CHANGE],
  'DELETE /my-account/primary-email': [USER_CHANGE],
  'POST /my-account/primary-phone': [USER_CHANGE],
  'DELETE /my-account/primary-phone': [USER_CHANGE],
  'POST /my-account/mfa-verifications': [USER_CHANGE],
  'PATCH /my-account/mfa-verifications/:verificationId/name': [USER_CHANGE],
  'DELETE /my-account/mfa-verifications/:verificationId': [USER_CHANGE],
  'POST /my-account/identities': [USER_CHANGE],
  'DELETE /my-account/identities/:target': [USER_CHANGE],

  'POST /organizations': [{ event: 'Organization.Created' }],
  'PATCH /organizations/:id': [{ event: 'Organization.Data.Updated' }],
  'DELETE /organizations/:id': [{ event: 'Organization.Deleted' }],
  'POST /organizations/:id/users': [MEMBERSHIP],
  'PUT /organizations/:id/users': [MEMBERSHIP],
  'DELETE /organizations/:id/users/:userId': [MEMBERSHIP],
  'POST /organizations/:id/applications': [MEMBERSHIP],
  'PUT /organizations/:id/applications': [MEMBERSHIP],
  'DELETE /organizations/:id/applications/:applicationId': [MEMBERSHIP],
  'PUT /organization-invitations/:id/status': [MEMBERSHIP],

  'POST /organization-roles': [
    { event: 'OrganizationRole.Created' },
    {
      event: 'OrganizationRole.Scopes.Updated',
      note: 'when organizationScopeIds (data: the organization scopes) or else resourceScopeIds (data: the resource scopes) is non-empty',
    },
  ],
  'PATCH /organization-roles/:id': [{ event: 'OrganizationRole.Data.Updated' }],
  'DELETE /organization-roles/:id': [{ event: 'OrganizationRole.Deleted' }],
  'POST /organization-roles/:id/scopes': [{ event: 'OrganizationRole.Scopes.Updated' }],
  'PUT /organization-roles/:id/scopes': [{ event: 'OrganizationRole.Scopes.Updated' }],
  'DELETE /organization-roles/:id/scopes/:organizationScopeId': [{ event: 'OrganizationRole.Scopes.Updated' }],
  'POST /organization-roles/:id/resource-scopes': [RESOURCE_SCOPES],
  'PUT /organization-roles/:id/resource-scopes': [RESOURCE_SCOPES],
  'DELETE /organization-roles/:id/resource-scopes/:scopeId': [RESOURCE_SCOPES],

  'POST /organization-scopes': [{ event: 'OrganizationScope.Created' }],
  'PATCH /organization-scopes/:id': [{ event: 'OrganizationScope.Data.Updated' }],
  'DELETE /organization-scopes/:id': [{ event: 'OrganizationScope.Deleted' }],
} as const satisfies RouteEventMap;
