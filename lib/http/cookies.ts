import Cookies from 'cookies';
import Keygrip from 'keygrip';
import type { Middleware } from 'koa';

/**
 * Signs and verifies cookies with the service's own keys wherever it is mounted. A host app mounting the
 * service has its own `app.keys`; without this the provider's signed cookies would fail under a prefix.
 */
export function ownCookieKeys(keys: string[]): Middleware {
  // One signer for every request rather than one per request.
  const signer = new Keygrip(keys);
  return async (ctx, next) => {
    const hostCookies = ctx.cookies;
    ctx.cookies = new Cookies(ctx.req, ctx.res, { keys: signer, secure: ctx.request.secure });
    try {
      await next();
    } finally {
      ctx.cookies = hostCookies;
    }
  };
}
