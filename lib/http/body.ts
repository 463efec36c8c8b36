import type { Context, Middleware } from 'koa';
import { errors } from '../errors.ts';

/** Content codings the body parsers decode; `x-gzip` is gzip's old name (RFC 9110 §8.4.1.3). */
const DECODED = new Map([['gzip', 'gzip'], ['x-gzip', 'gzip'], ['deflate', 'deflate'], ['br', 'br']]);
const ACCEPTED_CODINGS = 'gzip, deflate, br';

function hasBody(ctx: Context): boolean {
  return ctx.req.headers['transfer-encoding'] !== undefined || ctx.req.headers['content-length'] !== undefined;
}

/**
 * The request body's content coding as the decoder spells it (`identity` when none), or the header as sent
 * when it names a coding we do not decode or a chain of codings.
 */
function contentCoding(ctx: Context): { coding: string } | { unsupported: string } {
  const header = ctx.get('content-encoding');
  const codings = header.split(',').map((part) => part.trim().toLowerCase()).filter((part) => part && part !== 'identity');
  if (!codings.length) return { coding: 'identity' };
  const coding = codings.length === 1 ? DECODED.get(codings[0]!) : undefined;
  return coding ? { coding } : { unsupported: header };
}

function hasHttpStatus(error: unknown): boolean {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === 'number' && status >= 400 && status < 500;
}

/**
 * Runs a body parser (koa-body) alone, then the rest of the chain, so that only its own failures are
 * translated: a coding it cannot decode → 415 `guard.unsupported_content_encoding`, a body that does not
 * decode with its coding (zlib and brotli errors carry no HTTP status) → 400 `guard.invalid_body_encoding`.
 */
export function parseBody(parser: Middleware): Middleware {
  return async (ctx, next) => {
    const encoding = hasBody(ctx) ? contentCoding(ctx) : { coding: 'identity' };
    if ('unsupported' in encoding) {
      ctx.set('Accept-Encoding', ACCEPTED_CODINGS);
      throw errors.unsupportedContentEncoding(encoding.unsupported);
    }
    // The decoder reads the raw header: hand it the one spelling it knows.
    if (encoding.coding !== 'identity') ctx.req.headers['content-encoding'] = encoding.coding;
    try {
      await parser(ctx, async () => {});
    } catch (error) {
      if (encoding.coding !== 'identity' && !hasHttpStatus(error)) throw errors.invalidBodyEncoding();
      throw error;
    }
    await next();
  };
}

/**
 * oidc-provider reads request bodies without decoding any content coding, so a labelled body would be read
 * as something other than what was sent: refuse it with an OAuth error instead.
 */
export function refuseEncodedBodies(prefix: string): Middleware {
  return async (ctx, next) => {
    if (!ctx.path.startsWith(`${prefix}/`) || !hasBody(ctx)) return next();
    const encoding = contentCoding(ctx);
    if ('coding' in encoding && encoding.coding === 'identity') return next();
    ctx.status = 415;
    ctx.set('Accept-Encoding', 'identity');
    ctx.body = { error: 'invalid_request', error_description: 'request bodies with a Content-Encoding are not supported here' };
  };
}
