import type { Context, Middleware } from 'koa';

/**
 * `middleware` for the requests `applies` accepts; every other request goes straight on. The result is not an
 * async function, so a request that goes on gets no promise or frame of its own from this layer.
 */
export function when(applies: (ctx: Context) => boolean, middleware: Middleware): Middleware {
  return (ctx, next) => (applies(ctx) ? middleware(ctx, next) : next());
}
