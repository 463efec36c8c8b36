import type { Middleware } from 'koa';
import { within } from '../deadline.ts';
import { when } from './when.ts';

const PROBE_TIMEOUT_MS = 2000;

export interface Probe {
  name: string;
  check: () => Promise<void>;
}

/** `/healthz`: the process serves. `/readyz`: every store answers (503 with the failing ones otherwise). */
export function healthMiddleware(probes: Probe[]): Middleware {
  const answer: Middleware = async (ctx) => {
    if (ctx.path === '/healthz') {
      ctx.body = { status: 'ok' };
      return;
    }
    const results = await Promise.all(
      probes.map(async (probe) => {
        const answered = await within(
          probe.check().then(
            () => true,
            () => false,
          ),
          PROBE_TIMEOUT_MS,
          false,
        );
        return [probe.name, answered ? 'ok' : 'unavailable'] as const;
      }),
    );
    const allReady = results.every(([, state]) => state === 'ok');
    ctx.status = allReady ? 200 : 503;
    ctx.body = { status: allReady ? 'ready' : 'unavailable', checks: Object.fromEntries(results) };
  };
  return when(
    (ctx) => (ctx.method === 'GET' || ctx.method === 'HEAD') && (ctx.path === '/healthz' || ctx.path === '/readyz'),
    answer,
  );
}
