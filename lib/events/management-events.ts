import type { RouteEventMap } from './route-events.ts';

const MEMBERSHIP = {
  event: 'Organization.Membership.Updated',
  data: 'library',
  note: 'only when the membership changed',
} as const;
/** Account API changes: the handler states the whole user, or no event when nothing changed. */
const ACCOUNT_CHANGE = {
  event: 'User.Data.Updated',
  note: 'data is the whole user; only when something changed',
} as const;
const RESOURCE_SCOPES = {
  event: 'OrganizationRole.Scopes.Updated',
  data: 'library',
  note: "data: the role's API-resource scopes after the change",
} as const;

/**
 * Which management operation emits which webhook events, listed per operation in the OpenAPI document. Keys are
 * `"METHOD /route"` relative to `/api`, exactly as the routes declare them. Rows marked `library` describe what the
 * capability's library emits inside the request's transaction (see OperationEvents); the others are applied by
 * `routeEventsMiddleware` after the handler succeeded: `data` is the response body unless the handler replaced it or
 * the rule takes the snapshot a delete handler left; payloads with more than `data` come whole from the handler.
 * Either way the event tests run every row against the service, so the table stays true.
 */
export const MANAGEMENT_EVENTS = {
  'POST /resources/:resourceId/scopes': [{ event: 'Scope.Created', data: 'library' }],
  'PATCH /resources/:resourceId/scopes/:scopeId': [{ event: 'Scope.Data.Updated', data: 'library' }],
  'DELETE /resources/:resourceId/scopes/:scopeId': [{ event: 'Scope.Deleted', data: 'library' }],

  'POST /roles': [
    { event: 'Role.Created', data: 'library' },
    { event: 'Role.Scopes.Updated', data: 'library', note: 'when scopeIds is non-empty' },
  ],
  'PATCH /roles/:id': [{ event: 'Role.Data.Updated', data: 'library' }],
  'DELETE /roles/:id': [{ event: 'Role.Deleted', data: 'library' }],
  'POST /roles/:id/scopes': [{ event: 'Role.Scopes.Updated', data: 'library' }],
  'DELETE /roles/:id/scopes/:scopeId': [{ event: 'Role.Scopes.Updated', data: 'library' }],

  'POST /users': [{ event: 'User.Created' }],
  'PATCH /users/:userId': [{ event: 'User.Data.Updated' }],
  'PATCH /users/:userId/custom-data': [{ event: 'User.Data.Updated', note: 'data is the whole user' }],
  'PATCH /users/:userId/profile': [{ event: 'User.Data.Updated', note: 'data is the whole user' }],
  'PATCH /users/:userId/password': [{ event: 'User.Data.Updated' }],
  'PATCH /users/:userId/is-suspended': [{ event: 'User.SuspensionStatus.Updated' }],
  'DELETE /users/:userId': [{ event: 'User.Deleted', data: 'snapshot' }],
  'PUT /users/:userId/identities/:target': [{ event: 'User.Data.Updated', note: 'data is the whole user' }],
  'DELETE /users/:userId/identities/:target': [{ event: 'User.Data.Updated' }],
  'POST /users/:userId/mfa-verifications': [
    { event: 'User.Data.Updated', note: 'data is the user, never the secret or the codes' },
  ],
  'DELETE /users/:userId/mfa-verifications/:verificationId': [{ event: 'User.Data.Updated', note: 'data is the user' }],

  'PATCH /my-account': [ACCOUNT_CHANGE],
  'PATCH /my-account/profile': [ACCOUNT_CHANGE],
  'POST /my-account/password': [ACCOUNT_CHANGE],
  'POST /my-account/primary-email': [ACCOUNT_CHANGE],
  'DELETE /my-account/primary-email': [ACCOUNT_CHANGE],
  'POST /my-account/primary-phone': [ACCOUNT_CHANGE],
  'DELETE /my-account/primary-phone': [ACCOUNT_CHANGE],
  'POST /my-account/mfa-verifications': [ACCOUNT_CHANGE],
  'PATCH /my-account/mfa-verifications/:verificationId/name': [ACCOUNT_CHANGE],
  'DELETE /my-account/mfa-verifications/:verificationId': [ACCOUNT_CHANGE],
  'POST /my-account/identities': [ACCOUNT_CHANGE],
  'DELETE /my-account/identities/:target': [ACCOUNT_CHANGE],

  'POST /organizations': [{ event: 'Organization.Created', data: 'library' }],
  'PATCH /organizations/:id': [{ event: 'Organization.Data.Updated', data: 'library' }],
  'DELETE /organizations/:id': [{ event: 'Organization.Deleted', data: 'library' }],
  'POST /organizations/:id/users': [MEMBERSHIP],
  'PUT /organizations/:id/users': [MEMBERSHIP],
  'DELETE /organizations/:id/users/:userId': [MEMBERSHIP],
  'POST /organizations/:id/applications': [MEMBERSHIP],
  'PUT /organizations/:id/applications': [MEMBERSHIP],
  'DELETE /organizations/:id/applications/:applicationId': [MEMBERSHIP],
  'PUT /organization-invitations/:id/status': [MEMBERSHIP],

  'POST /organization-roles': [
    { event: 'OrganizationRole.Created', data: 'library' },
    {
      event: 'OrganizationRole.Scopes.Updated',
      data: 'library',
      note: 'when organizationScopeIds (data: the organization scopes) or else resourceScopeIds (data: the resource scopes) is non-empty',
    },
  ],
  'PATCH /organization-roles/:id': [{ event: 'OrganizationRole.Data.Updated', data: 'library' }],
  'DELETE /organization-roles/:id': [{ event: 'OrganizationRole.Deleted', data: 'library' }],
  'POST /organization-roles/:id/scopes': [{ event: 'OrganizationRole.Scopes.Updated', data: 'library' }],
  'PUT /organization-roles/:id/scopes': [{ event: 'OrganizationRole.Scopes.Updated', data: 'library' }],
  'DELETE /organization-roles/:id/scopes/:organizationScopeId': [
    { event: 'OrganizationRole.Scopes.Updated', data: 'library' },
  ],
  'POST /organization-roles/:id/resource-scopes': [RESOURCE_SCOPES],
  'PUT /organization-roles/:id/resource-scopes': [RESOURCE_SCOPES],
  'DELETE /organization-roles/:id/resource-scopes/:scopeId': [RESOURCE_SCOPES],

  'POST /organization-scopes': [{ event: 'OrganizationScope.Created', data: 'library' }],
  'PATCH /organization-scopes/:id': [{ event: 'OrganizationScope.Data.Updated', data: 'library' }],
  'DELETE /organization-scopes/:id': [{ event: 'OrganizationScope.Deleted', data: 'library' }],
} as const satisfies RouteEventMap;
