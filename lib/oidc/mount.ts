import type { Middleware } from 'koa';
import type Provider from 'oidc-provider';
import { providerMiddleware } from './boundary.ts';

const PREFIX = '/oidc';

/**
 * Serves the provider under `/oidc`. Unlike a generic mount, the mount path handed to the provider is the
 * issuer's full path, so URLs it builds stay right however deeply the service itself is mounted.
 */
export function mountProvider(provider: Provider, issuer: string): Middleware {
  const downstream = providerMiddleware(provider);
  const issuerPath = new URL(issuer).pathname.replace(/\/+$/, '');
  return async (ctx, next) => {
    if (ctx.path !== PREFIX && !ctx.path.startsWith(`${PREFIX}/`)) return next();
    const path = ctx.path;
    const mountPath = ctx.mountPath;
    ctx.path = path.slice(PREFIX.length) || '/';
    ctx.mountPath = issuerPath;
    try {
      await downstream(ctx, async () => {
        ctx.path = path;
        await next();
      });
    } finally {
      ctx.path = path;
      ctx.mountPath = mountPath;
    }
  };
}
