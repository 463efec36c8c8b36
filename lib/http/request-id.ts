import { AsyncLocalStorage } from 'node:async_hooks';
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

export interface RequestScope {
  /** The service's logger: every line written while a request is served carries its `requestId`. */
  logger: Logger;
  /** Serves one request under its id. */
  run<T>(requestId: string, serve: () => Promise<T>): Promise<T>;
}

/**
 * Request ids for every log line of a request, including those of libraries that never see the request: the id
 * travels with the request's asynchronous work (one store per service instance, none shared between instances).
 */
export function createRequestScope(base: Logger): RequestScope {
  const current = new AsyncLocalStorage<string>();
  const logger = base.child(
    {},
    {
      formatters: {
        log(object: object) {
          const requestId = current.getStore();
          return requestId === undefined ? object : { ...object, requestId };
        },
      },
    },
  );
  return { logger, run: (requestId, serve) => current.run(requestId, serve) };
}

/** The logger of the request being served (`ctx.state.logger`), or the given one outside a request. */
export function requestLogger(ctx: Context, fallback: Logger): Logger {
  const bound: unknown = ctx.state.logger;
  return bound && typeof bound === 'object' && 'child' in bound ? (bound as Logger) : fallback;
}
