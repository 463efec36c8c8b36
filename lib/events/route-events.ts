import type { Context, Middleware } from 'koa';
import type { EventBus, EventDraft } from './bus.ts';
import type { DataEventName } from './catalogue.ts';
import { managementContext } from './context.ts';
import type { OperationEvents } from './operation.ts';
import type { EventPayloads } from './payloads.ts';

/** `"METHOD /matched/route"`, the route relative to the API prefix, e.g. `"DELETE /roles/:id"`. */
export type RouteKey = `${'POST' | 'PUT' | 'PATCH' | 'DELETE'} /${string}`;

/** Data events whose payload has fields beyond `data`: only the handler can state those. */
// biome-ignore lint/complexity/noBannedTypes: `{}` is the test itself: a payload whose other fields are all optional.
type HandlerShaped = { [N in DataEventName]: {} extends Omit<EventPayloads[N], 'data'> ? never : N }[DataEventName];

interface RuleBase<N extends DataEventName> {
  event: N;
  /** When the event is published, or what its payload is, where the name alone does not say (API docs). */
  note?: string;
}

/**
 * Where an event's payload comes from: `library` = the capability's library emits it as it makes the change (the row
 * is then documentation, and the library decides whether it happens); `data` = the response body (default) or the
 * snapshot a delete handler left; `handler` = the whole payload as the handler states it, and no event when it
 * states none.
 */
type RuleOf<N extends DataEventName> = N extends HandlerShaped
  ? RuleBase<N> & { data: 'handler' | 'library' }
  : RuleBase<N> & { data?: 'body' | 'snapshot' | 'library' };

export type RouteEventRule = { [N in DataEventName]: RuleOf<N> }[DataEventName];

export type RouteEventMap = Partial<Record<RouteKey, readonly RouteEventRule[]>>;

/**
 * What a handler may say about the events of its request, through `ctx.state.events`: `false` suppresses
 * an event (nothing changed), a payload replaces what the rule would take.
 */
export type EventOverrides = { [N in DataEventName]?: false | EventPayloads[N] };

export interface EventState {
  events?: EventOverrides;
  /** The entity as it was before a delete. */
  snapshot?: unknown;
}

/** The event one rule yields for the request, if any. */
function draftOf<N extends DataEventName>(
  rule: { event: N; data?: 'body' | 'snapshot' | 'handler' | 'library' },
  state: EventState,
  body: unknown,
): EventDraft<DataEventName> | undefined {
  // Asserted drafts: TypeScript cannot tie a generic name to its payload; an override was checked against
  // the map when the handler set it, the body has passed the route's response schema, and the snapshot is
  // the entity the handler deleted.
  const override = state.events?.[rule.event];
  if (override === false) return undefined;
  if (override) return { event: rule.event, payload: override } as EventDraft<DataEventName>;
  if (rule.data === 'handler') return undefined;
  const data = (rule.data === 'snapshot' ? state.snapshot : body) ?? null;
  return { event: rule.event, payload: { data } } as EventDraft<DataEventName>;
}

/**
 * Applied once, around every management route: after the handler succeeded (2xx, no exception), it emits
 * the events the map assigns to the matched route, in the request's management context.
 */
export function routeEventsMiddleware(options: {
  map: RouteEventMap;
  bus: EventBus;
  prefix: string;
  operations: OperationEvents;
}): Middleware {
  return async (ctx, next) => {
    const { events: emitted } = await options.operations.collect(next);
    if (ctx.status < 200 || ctx.status >= 300) return;
    const matched = relativeRoute(ctx, options.prefix);
    if (!matched) return;
    const rules = options.map[`${ctx.method} ${matched}` as RouteKey] ?? [];
    const state = ctx.state as EventState;
    const drafts = [
      ...emitted,
      ...rules
        .filter((rule) => rule.data !== 'library')
        .map((rule) => draftOf(rule, state, ctx.body))
        .filter((draft) => draft !== undefined),
    ];
    if (drafts.length > 0) await options.bus.emitAll(managementContext(ctx, options.prefix, matched), drafts);
  };
}

function relativeRoute(ctx: Context, prefix: string): string | undefined {
  const matched = (ctx as Context & { _matchedRoute?: string | RegExp })._matchedRoute;
  if (typeof matched !== 'string') return undefined;
  return matched.startsWith(prefix) ? matched.slice(prefix.length) || '/' : matched;
}
