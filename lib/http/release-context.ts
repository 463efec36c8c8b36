import type Koa from 'koa';
import type { Context, Middleware } from 'koa';

/** EventEmitter's own fields on the provider's context, kept: a late `emit` on it would throw without them. */
const EMITTER_FIELDS = new Set(['_events', '_eventsCount', '_maxListeners']);

/** Sets every own enumerable property of `target` to undefined, except those in `keep`. */
function clear(target: object, keep?: ReadonlySet<string>): void {
  for (const key of Object.keys(target)) {
    // `Reflect.set`: a property without a setter stays as it is instead of throwing.
    if (!keep?.has(key)) Reflect.set(target, key, undefined);
  }
}

function release(ctx: Context): void {
  try {
    // The provider's context first: reading it may build it, which reads the Koa context.
    if (Object.hasOwn(ctx, 'oidc')) {
      const oidc: unknown = ctx.oidc;
      if (oidc && typeof oidc === 'object') clear(oidc, EMITTER_FIELDS);
    }
  } catch {
    // A getter that throws keeps its context: only memory is at stake, and nothing may reach the event loop from here.
  }
  clear(ctx);
}

/**
 * Lets go of what a request's context holds once the request is over.
 *
 * The provider defines `ctx.oidc` on every request it routes with a getter of that request's own, and V8 keeps a
 * property's getter in an accessor pair it allocates in the old generation. Until the next full collection that pair
 * keeps the getter alive through every scavenge, and with it all the getter's scope reaches: the Koa context, the
 * request and response with their headers, and the provider's context with its parameters and entities. Each token
 * request's objects were therefore promoted to the old generation, and the old generation filled up with them.
 *
 * Once the middleware chain has settled and the response is closed (sent, or its connection gone), nothing reads the
 * context again: its properties, and the provider context's, are cleared, so that the pair holds empty shells. Only
 * contexts `app` made are cleared; a host that mounts the service's middleware on its own context keeps it whole.
 */
export function releaseContexts(app: Koa): Middleware {
  return async (ctx, next) => {
    if (ctx.app !== app) return next();
    try {
      await next();
    } finally {
      // After the chain, and a turn after the response's own `close` listeners.
      const done = () => setImmediate(release, ctx);
      if (ctx.res.closed) done();
      else ctx.res.once('close', done);
    }
  };
}
