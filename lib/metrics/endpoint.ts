import { timingSafeEqual, createHash } from 'node:crypto';
import type { Middleware } from 'koa';
import { when } from '../http/when.ts';
import type { Metrics } from './registry.ts';

export const METRICS_PATH = '/metrics';

/** Equal-length digests, so the comparison takes the same time whatever the presented token's length. */
function sameToken(presented: string, expected: string): boolean {
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/**
 * `GET /metrics` in Prometheus text format. With a token configured, only `Authorization: Bearer <token>` may
 * read it (401 with `WWW-Authenticate` otherwise); without one it is open, for scrapers on a private network.
 */
export function metricsEndpoint(metrics: Pick<Metrics, 'registry' | 'scrape'>, token: string | undefined): Middleware {
  const serve: Middleware = async (ctx) => {
    ctx.state.route = METRICS_PATH;
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      ctx.status = 405;
      ctx.set('Allow', 'GET, HEAD');
      ctx.body = { code: 'route.method_not_allowed', message: 'method not allowed on this route' };
      return;
    }
    if (token !== undefined) {
      const match = /^Bearer (\S+)$/i.exec(ctx.get('authorization'));
      if (!match || !sameToken(match[1]!, token)) {
        ctx.status = 401;
        ctx.set('WWW-Authenticate', 'Bearer realm="metrics"');
        ctx.body = { code: 'auth.unauthorized', message: 'a valid bearer token is required' };
        return;
      }
    }
    ctx.set('Cache-Control', 'no-store');
    ctx.type = metrics.registry.contentType;
    ctx.body = await metrics.scrape();
  };
  return when((ctx) => ctx.path === METRICS_PATH, serve);
}
