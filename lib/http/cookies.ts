import Cookies from 'cookies';
import Keygrip from 'keygrip';
import type { Context, Middleware, Next } from 'koa';
import { when } from './when.ts';

/**
 * Signs and verifies cookies with the service's own keys wherever it is mounted. A host app mounting the
 * service has its own `app.keys`; without this the provider's signed cookies would fail under a prefix.
 */
export function ownCookieKeys(keys: string[]): Middleware {
  // One signer for every request rather than one per request.
  const signer = new Keygrip(keys);
  // Where the app serving the request is the service's own (its `keys` are these), Koa's cookies, made on first
  // use, already sign with them: nothing to do.
  return when((ctx) => ctx.app.keys !== keys, withOwnKeys);
  async function withOwnKeys(ctx: Context, next: Next): Promise<void> {
    const hostCookies = ctx.cookies;
    ctx.cookies = new Cookies(ctx.req, ctx.res, { keys: signer, secure: ctx.request.secure });
    try {
      await next();
    } finally {
      ctx.cookies = hostCookies;
    }
  }
}
