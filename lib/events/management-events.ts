import type { RouteEventMap } from './route-events.ts';

/**
 * Which management operation emits which webhook events, applied by `routeEventsMiddleware` after the
 * handler succeeded. Keys are `"METHOD /route"` relative to `/api`, exactly as the routes declare them.
 */
export const MANAGEMENT_EVENTS = {
  'POST /resources/:resourceId/scopes': [{ event: 'Scope.Created' }],
  'PATCH /resources/:resourceId/scopes/:scopeId': [{ event: 'Scope.Data.Updated' }],
  'DELETE /resources/:resourceId/scopes/:scopeId': [{ event: 'Scope.Deleted', data: 'snapshot' }],
  'POST /roles': [{ event: 'Role.Created' }, { event: 'Role.Scopes.Updated' }],
  'PATCH /roles/:id': [{ event: 'Role.Data.Updated' }],
  'DELETE /roles/:id': [{ event: 'Role.Deleted', data: 'snapshot' }],
  'POST /roles/:id/scopes': [{ event: 'Role.Scopes.Updated' }],
  'DELETE /roles/:id/scopes/:scopeId': [{ event: 'Role.Scopes.Updated', data: 'snapshot' }],
} as const satisfies RouteEventMap;
