import type { Context, Middleware } from 'koa';
import type { EventBus } from './bus.ts';
import type { DataEventName } from './catalogue.ts';
import { managementContext } from './context.ts';
import type { OperationEvents } from './operation.ts';

/** `"METHOD /matched/route"`, the route relative to the API prefix, e.g. `"DELETE /roles/:id"`. */
export type RouteKey = `${'POST' | 'PUT' | 'PATCH' | 'DELETE'} /${string}`;

/** One data event an operation may publish, as the API documentation lists it. */
export interface RouteEventRule {
  event: DataEventName;
  /** When the event is published, or what its payload is, where the name alone does not say. */
  note?: string;
}

export type RouteEventMap = Partial<Record<RouteKey, readonly RouteEventRule[]>>;

/**
 * Thrown when a route's libraries stated an event its row of the documented table does not list: a bug, never the
 * client's fault. Like a response that breaks its schema, it fails the request (500 `service.internal_error`, logged
 * at error level) and rolls its transaction back, in every environment: subscribers are only ever sent what the API
 * documentation promises them.
 */
export class EventContractError extends Error {
  constructor(route: string, undocumented: readonly string[]) {
    super(`${route} published ${undocumented.join(', ')}, which its row of the route → event table does not list`);
    this.name = 'EventContractError';
  }
}

/**
 * Applied once, around every management route, inside the request's transaction: the data events the libraries
 * stated while the handler ran are published in the request's management context once it succeeded (2xx, no
 * exception); a failed request publishes nothing. `documented` is the route → event table: what the libraries
 * state must be in the route's row (see EventContractError), so the table stays the whole truth.
 */
export function routeEventsMiddleware(options: {
  bus: EventBus;
  prefix: string;
  operations: OperationEvents;
  documented: RouteEventMap;
}): Middleware {
  const listed = new Map(
    Object.entries(options.documented).map(([route, rules]) => [route, new Set(rules?.map((rule) => rule.event))]),
  );
  return async (ctx, next) => {
    const { events } = await options.operations.collect(next);
    if (events.length === 0 || ctx.status < 200 || ctx.status >= 300) return;
    const matched = relativeRoute(ctx, options.prefix);
    const route = `${ctx.method} ${matched ?? ctx.path}`;
    const allowed = matched ? listed.get(route) : undefined;
    const undocumented = [...new Set(events.map((draft) => draft.event).filter((name) => !allowed?.has(name)))];
    if (!matched || undocumented.length > 0) throw new EventContractError(route, undocumented);
    await options.bus.emitAll(managementContext(ctx, options.prefix, matched), events);
  };
}

function relativeRoute(ctx: Context, prefix: string): string | undefined {
  const matched = (ctx as Context & { _matchedRoute?: string | RegExp })._matchedRoute;
  if (typeof matched !== 'string') return undefined;
  return matched.startsWith(prefix) ? matched.slice(prefix.length) || '/' : matched;
}
