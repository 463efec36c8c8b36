import Cookies from 'cookies';
import type { Middleware } from 'koa';

/**
 * Signs and verifies cookies with the service's own keys wherever it is mounted. A host app mounting the
 * service has its own `app.keys`; without this the provider's signed cookies would fail under a prefix.
 */
export function ownCookieKeys(keys: string[]): Middleware {
  return async (ctx, next) => {
    const hostCookies = ctx.cookies;
    ctx.cookies = new Cookies(ctx.req, ctx.res, { keys, secure: ctx.request.secure });
    try {
      await next();
    } finally {
      ctx.cookies = hostCookies;
    }
  };
}
