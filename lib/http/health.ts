import type { Middleware } from 'koa';
import { within } from '../deadline.ts';

const PROBE_TIMEOUT_MS = 2000;

export interface Probe {
  name: string;
  check: () => Promise<void>;
}

/** `/healthz`: the process serves. `/readyz`: every store answers (503 with the failing ones otherwise). */
export function healthMiddleware(probes: Probe[]): Middleware {
  return async (ctx, next) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    if (ctx.path === '/healthz') {
      ctx.body = { status: 'ok' };
      return;
    }
    if (ctx.path !== '/readyz') return next();
    const results = await Promise.all(probes.map(async (probe) => {
      const answered = await within(probe.check().then(() => true, () => false), PROBE_TIMEOUT_MS, false);
      return [probe.name, answered ? 'ok' : 'unavailable'] as const;
    }));
    const ready = results.every(([, state]) => state === 'ok');
    ctx.status = ready ? 200 : 503;
    ctx.body = { status: ready ? 'ready' : 'unavailable', checks: Object.fromEntries(results) };
  };
}
