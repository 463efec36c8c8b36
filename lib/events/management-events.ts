import type { RouteEventMap } from './route-events.ts';

/**
 * Which management operation emits which webhook events, applied by `routeEventsMiddleware` after the
 * handler succeeded. Keys are `"METHOD /route"` relative to `/api`, exactly as the routes declare them.
 * `data` is the response body unless the handler replaced it (e.g. a route that answers with a part of
 * the entity) or the rule takes the snapshot a delete handler left.
 */
export const MANAGEMENT_EVENTS = {
  'POST /resources/:resourceId/scopes': [{ event: 'Scope.Created' }],
  'PATCH /resources/:resourceId/scopes/:scopeId': [{ event: 'Scope.Data.Updated' }],
  'DELETE /resources/:resourceId/scopes/:scopeId': [{ event: 'Scope.Deleted', data: 'snapshot' }],

  // Role.Scopes.Updated: `data` = the role's scopes after the change, plus a top-level `roleId`.
  'POST /roles': [{ event: 'Role.Created' }, { event: 'Role.Scopes.Updated' }],
  'PATCH /roles/:id': [{ event: 'Role.Data.Updated' }],
  'DELETE /roles/:id': [{ event: 'Role.Deleted', data: 'snapshot' }],
  'POST /roles/:id/scopes': [{ event: 'Role.Scopes.Updated' }],
  'DELETE /roles/:id/scopes/:scopeId': [{ event: 'Role.Scopes.Updated' }],

  'POST /users': [{ event: 'User.Created' }],
  'PATCH /users/:userId': [{ event: 'User.Data.Updated' }],
  'PATCH /users/:userId/custom-data': [{ event: 'User.Data.Updated' }],
  'PATCH /users/:userId/profile': [{ event: 'User.Data.Updated' }],
  'PATCH /users/:userId/password': [{ event: 'User.Data.Updated' }],
  'PATCH /users/:userId/is-suspended': [{ event: 'User.SuspensionStatus.Updated' }],
  'DELETE /users/:userId': [{ event: 'User.Deleted', data: 'snapshot' }],

  'POST /organizations': [{ event: 'Organization.Created' }],
  'PATCH /organizations/:id': [{ event: 'Organization.Data.Updated' }],
  'DELETE /organizations/:id': [{ event: 'Organization.Deleted', data: 'snapshot' }],
  // Organization.Membership.Updated: `data` = the organization, plus `organizationId` and the non-empty
  // lists among addedUserIds, removedUserIds, addedApplicationIds, removedApplicationIds.
  'POST /organizations/:id/users': [{ event: 'Organization.Membership.Updated' }],
  'PUT /organizations/:id/users': [{ event: 'Organization.Membership.Updated' }],
  'DELETE /organizations/:id/users/:userId': [{ event: 'Organization.Membership.Updated' }],
  'POST /organizations/:id/applications': [{ event: 'Organization.Membership.Updated' }],
  'PUT /organizations/:id/applications': [{ event: 'Organization.Membership.Updated' }],
  'DELETE /organizations/:id/applications/:applicationId': [{ event: 'Organization.Membership.Updated' }],
  'PUT /organization-invitations/:id/status': [{ event: 'Organization.Membership.Updated' }],

  // OrganizationRole.Scopes.Updated: `data` = the role's scopes after the change, plus `organizationRoleId`.
  'POST /organization-roles': [{ event: 'OrganizationRole.Created' }, { event: 'OrganizationRole.Scopes.Updated' }],
  'PATCH /organization-roles/:id': [{ event: 'OrganizationRole.Data.Updated' }],
  'DELETE /organization-roles/:id': [{ event: 'OrganizationRole.Deleted', data: 'snapshot' }],
  'POST /organization-roles/:id/scopes': [{ event: 'OrganizationRole.Scopes.Updated' }],
  'PUT /organization-roles/:id/scopes': [{ event: 'OrganizationRole.Scopes.Updated' }],
  'DELETE /organization-roles/:id/scopes/:organizationScopeId': [{ event: 'OrganizationRole.Scopes.Updated' }],

  'POST /organization-scopes': [{ event: 'OrganizationScope.Created' }],
  'PATCH /organization-scopes/:id': [{ event: 'OrganizationScope.Data.Updated' }],
  'DELETE /organization-scopes/:id': [{ event: 'OrganizationScope.Deleted', data: 'snapshot' }],
} as const satisfies RouteEventMap;
