import type { Context, Middleware } from 'koa';
import type { DocumentStore } from '../ports/documents.ts';

const READ_ONLY = new Set(['GET', 'HEAD', 'OPTIONS']);

class Unsuccessful extends Error {}

/**
 * Runs every request that may change data in one transaction: its writes, and the outbox entries of the
 * events it publishes, commit together once the handler succeeded, or not at all. A handler that answers
 * an error without throwing (an error page) rolls back too. The response is only sent after the commit, so
 * a success always means the change and its events are stored. `exempt` names requests that need none.
 */
export function transactionalRequests(store: DocumentStore, exempt?: (ctx: Context) => boolean): Middleware {
  return async (ctx, next) => {
    if (READ_ONLY.has(ctx.method) || exempt?.(ctx)) return next();
    try {
      await store.transaction(async () => {
        await next();
        if (ctx.status >= 400) throw new Unsuccessful();
      });
    } catch (error) {
      if (!(error instanceof Unsuccessful)) throw error;
    }
  };
}
