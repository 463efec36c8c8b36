import type { Middleware } from 'koa';
import { within } from '../deadline.ts';

const PROBE_TIMEOUT_MS = 2000;

export interface Probe {
  name: string;
  check: () => Promise<void>;
}

/** `/healthz`: the process serves. `/readyz`: every store answers (503 with the failing ones otherwise). */
export function healthMiddleware(probes: Probe[]): Middleware {
  const ready: Middleware = async (ctx) => {
    const results = await Promise.all(probes.map(async (probe) => {
      const answered = await within(probe.check().then(() => true, () => false), PROBE_TIMEOUT_MS, false);
      return [probe.name, answered ? 'ok' : 'unavailable'] as const;
    }));
    const allReady = results.every(([, state]) => state === 'ok');
    ctx.status = allReady ? 200 : 503;
    ctx.body = { status: allReady ? 'ready' : 'unavailable', checks: Object.fromEntries(results) };
  };
  // Not an async function: every other request passes on without a promise of its own.
  return (ctx, next) => {
    if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || (ctx.path !== '/healthz' && ctx.path !== '/readyz')) return next();
    if (ctx.path === '/readyz') return ready(ctx, next);
    ctx.body = { status: 'ok' };
    return undefined;
  };
}
