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
 * Applied once, around every management route, inside the request's transaction: the data events the libraries
 * stated while the handler ran are published in the request's management context once it succeeded (2xx, no
 * exception); a failed request publishes nothing.
 */
export function routeEventsMiddleware(options: {
  bus: EventBus;
  prefix: string;
  operations: OperationEvents;
}): Middleware {
  return async (ctx, next) => {
    const { events } = await options.operations.collect(next);
    if (events.length === 0 || ctx.status < 200 || ctx.status >= 300) return;
    const matched = relativeRoute(ctx, options.prefix);
    if (!matched) return;
    await options.bus.emitAll(managementContext(ctx, options.prefix, matched), events);
  };
}

function relativeRoute(ctx: Context, prefix: string): string | undefined {
  const matched = (ctx as Context & { _matchedRoute?: string | RegExp })._matchedRoute;
  if (typeof matched !== 'string') return undefined;
  return matched.startsWith(prefix) ? matched.slice(prefix.length) || '/' : matched;
}
