import { randomUUID } from 'node:crypto';
import type { Context } from 'koa';
import type { Logger } from 'pino';

export const REQUEST_ID_HEADER = 'X-Request-Id';

/** What an incoming id may be: short and plain, so it can go into logs and headers as it is. */
const ACCEPTABLE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The caller's `X-Request-Id` when it is acceptable (a proxy's or a client's correlation id), a fresh UUID otherwise. */
export function requestIdOf(ctx: Context): string {
  const incoming = ctx.get(REQUEST_ID_HEADER);
  return ACCEPTABLE_ID.test(incoming) ? incoming : randomUUID();
}

/**
 * The logger of the request being served: the service's, bound to the request id by the access-log middleware,
 * so every line written for one request can be found with its id. Falls back to the given one outside a request.
 */
export function requestLogger(ctx: Context, fallback: Logger): Logger {
  const bound: unknown = ctx.state.logger;
  return bound && typeof bound === 'object' && 'child' in bound ? (bound as Logger) : fallback;
}
