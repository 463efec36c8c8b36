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
      withLogtoCode(ctx.body);
    } finally {
      ctx.path = path;
      ctx.mountPath = mountPath;
    }
  };
}

/**
 * A JSON OAuth error also says itself as Logto's errors do (`code` `oidc.<error>`, `message`), which Logto's SDKs read
 * (they throw a LogtoRequestError with that code); `error` and `error_description` stay as OAuth has them.
 */
function withLogtoCode(body: unknown): void {
  if (typeof body !== 'object' || body === null || Buffer.isBuffer(body)) return;
  const answer = body as Record<string, unknown>;
  if (typeof answer.error !== 'string' || 'code' in answer) return;
  answer.code = `oidc.${answer.error}`;
  answer.message = typeof answer.error_description === 'string' ? answer.error_description : answer.error;
}
