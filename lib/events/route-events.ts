import type { Context, Middleware } from 'koa';
import type { EventBus, IdentityEvent } from './bus.ts';
import type { EventName } from './catalogue.ts';

/** `"METHOD /matched/route"`, the route relative to the API prefix, e.g. `"DELETE /roles/:id"`. */
export type RouteKey = `${'POST' | 'PUT' | 'PATCH' | 'DELETE'} /${string}`;

export interface RouteEventRule {
  event: EventName;
  /** Where `data` comes from: the response body (default) or the snapshot a delete handler left. */
  data?: 'body' | 'snapshot';
}

export type RouteEventMap = Partial<Record<RouteKey, readonly RouteEventRule[]>>;

/**
 * What a handler may say about the events of its request, through `ctx.state.events`: `false` suppresses
 * an event (nothing changed), an object replaces `data` and/or adds top-level fields.
 */
export type EventOverrides = Partial<Record<EventName, false | { data?: unknown; fields?: Record<string, unknown> }>>;

export interface EventState {
  events?: EventOverrides;
  /** The entity as it was before a delete. */
  snapshot?: unknown;
}

/**
 * Applied once, around every management route: after the handler succeeded (2xx, no exception), it
 * publishes the events the map assigns to the matched route, with the management-API context fields.
 */
export function routeEventsMiddleware(options: { map: RouteEventMap; bus: EventBus; prefix: string }): Middleware {
  return async (ctx, next) => {
    await next();
    if (ctx.status < 200 || ctx.status >= 300) return;
    const matched = relativeRoute(ctx, options.prefix);
    if (!matched) return;
    const rules = options.map[`${ctx.method} ${matched}` as RouteKey];
    if (!rules) return;
    const state = ctx.state as EventState;
    const createdAt = new Date().toISOString();
    const events: IdentityEvent[] = [];
    for (const rule of rules) {
      const override = state.events?.[rule.event];
      if (override === false) continue;
      const data = override?.data ?? (rule.data === 'snapshot' ? state.snapshot : ctx.body);
      events.push({
        event: rule.event,
        createdAt,
        ...managementContext(ctx, options.prefix, matched),
        ...override?.fields,
        data: data ?? null,
      });
    }
    await options.bus.publish(events);
  };
}

function relativeRoute(ctx: Context, prefix: string): string | undefined {
  const matched = (ctx as Context & { _matchedRoute?: string | RegExp })._matchedRoute;
  if (typeof matched !== 'string') return undefined;
  return matched.startsWith(prefix) ? matched.slice(prefix.length) || '/' : matched;
}

function managementContext(ctx: Context, prefix: string, matchedRoute: string): Record<string, unknown> {
  const path = ctx.path.startsWith(prefix) ? ctx.path.slice(prefix.length) : ctx.path;
  return {
    ip: ctx.ip,
    userAgent: ctx.get('user-agent') || undefined,
    path,
    method: ctx.method,
    status: ctx.status,
    params: { ...ctx.params },
    matchedRoute,
  };
}
