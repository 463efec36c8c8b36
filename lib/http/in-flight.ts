import type { Middleware } from 'koa';
import { within } from '../deadline.ts';

/**
 * Counts the requests the service is answering, so that shutting down waits for them before it closes the
 * stores under them: a request in flight finishes with its real answer instead of a 503 (or a transaction
 * cut in half).
 */
export function createInFlight() {
  let count = 0;
  const waiting: Array<() => void> = [];

  const middleware: Middleware = async (_ctx, next) => {
    count += 1;
    try {
      await next();
    } finally {
      count -= 1;
      if (count === 0) for (const resolve of waiting.splice(0)) resolve();
    }
  };

  return {
    middleware,
    /** Resolves once no request is in flight, or after `ms` whatever is left. */
    async drained(ms: number): Promise<void> {
      if (count === 0) return;
      await within(new Promise<void>((resolve) => waiting.push(resolve)), ms, undefined);
    },
  };
}
