import type { Context, Middleware } from 'koa';
import type { KoaContextWithOIDC } from 'oidc-provider';
import type { Logger } from 'pino';
import type { Metrics } from '../metrics/registry.ts';
import { REQUEST_ID_HEADER, requestIdOf, type RequestScope } from './request-id.ts';

/** Paths served outside any router, named as they are (nothing else is a fixed path). */
const FIXED_ROUTES = new Set(['/healthz', '/readyz']);

/**
 * The route pattern a request matched, never its concrete path: a path can carry ids (and, at the provider, a
 * query string can carry codes and tokens), and metrics need a bounded set of labels. The provider's routes are
 * named by the provider (`oidc:token`); a request nothing matched is `unmatched`.
 */
export function routeOf(ctx: Context): string {
  if (typeof ctx.state.route === 'string') return ctx.state.route;
  // Before the router's pattern: the provider routes with a router of its own, relative to its mount.
  const oidcRoute = (ctx.oidc as KoaContextWithOIDC['oidc'] | undefined)?.route;
  if (typeof oidcRoute === 'string') return `oidc:${oidcRoute}`;
  const matched: unknown = ctx._matchedRoute;
  if (typeof matched === 'string') return matched;
  return FIXED_ROUTES.has(ctx.path) ? ctx.path : 'unmatched';
}

/** The application the request acted as, once authenticated: a management token's client, or the OIDC client. */
function clientIdOf(ctx: Context): string | undefined {
  const principal = ctx.state.principal as { clientId?: unknown } | undefined;
  if (typeof principal?.clientId === 'string' && principal.clientId) return principal.clientId;
  return (ctx.oidc as KoaContextWithOIDC['oidc'] | undefined)?.client?.clientId;
}

export function statusOfThrown(error: unknown): number {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === 'number' && status >= 400 && status < 600 ? status : 500;
}

/**
 * The outermost middleware: gives the request its id (echoed in `X-Request-Id`, carried by every line logged while
 * it is served), then writes one info line when it is answered — method, route pattern, status, duration, request
 * id and the client when known. Nothing else of the request is logged: no query string, header, cookie or body.
 */
export function accessLog(scope: RequestScope, metrics: Metrics): Middleware {
  return (ctx, next) => {
    const requestId = requestIdOf(ctx);
    ctx.state.requestId = requestId;
    ctx.state.logger = scope.logger;
    ctx.set(REQUEST_ID_HEADER, requestId);
    return scope.run(requestId, () => served(ctx, next, scope.logger, metrics));
  };
}

/**
 * Runs the rest of the stack, then reports the status the request was answered with — the thrown error's status
 * when it threw (500 for an unexpected one) — whatever happened.
 */
export async function afterResponse(
  ctx: Context,
  next: () => Promise<unknown>,
  report: (status: number) => void,
): Promise<void> {
  let status = 500;
  try {
    await next();
    status = ctx.status;
  } catch (error) {
    status = statusOfThrown(error);
    throw error;
  } finally {
    report(status);
  }
}

/** Times the request and writes its line, whatever answered it (or threw). */
async function served(ctx: Context, next: () => Promise<unknown>, log: Logger, metrics: Metrics): Promise<void> {
  const started = process.hrtime.bigint();
  await afterResponse(ctx, next, (status) => {
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const route = routeOf(ctx);
    const labels = { method: ctx.method, route, status: String(status) };
    metrics.httpRequests.inc(labels);
    metrics.httpDurations.observe(labels, seconds);
    const clientId = clientIdOf(ctx);
    log.info(
      {
        method: ctx.method,
        route,
        status,
        durationMs: Math.round(seconds * 1e6) / 1000,
        ...(clientId ? { clientId } : {}),
      },
      'request',
    );
  });
}
