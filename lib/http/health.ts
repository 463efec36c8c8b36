import type { Middleware } from 'koa';

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
      try {
        await withTimeout(probe.check(), 2000);
        return [probe.name, 'ok'] as const;
      } catch {
        return [probe.name, 'unavailable'] as const;
      }
    }));
    const ready = results.every(([, state]) => state === 'ok');
    ctx.status = ready ? 200 : 503;
    ctx.body = { status: ready ? 'ready' : 'unavailable', checks: Object.fromEntries(results) };
  };
}

async function withTimeout(promise: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([promise, new Promise<void>((_, reject) => {
      timer = setTimeout(() => reject(new Error('timeout')), ms);
    })]);
  } finally {
    clearTimeout(timer);
  }
}
