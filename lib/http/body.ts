import type { Context, Middleware } from 'koa';
import { koaBody } from 'koa-body';
import { errors } from '../errors.ts';

/** Content codings the body parsers decode; `x-gzip` is gzip's old name (RFC 9110 §8.4.1.3). */
const DECODED = new Map([
  ['gzip', 'gzip'],
  ['x-gzip', 'gzip'],
  ['deflate', 'deflate'],
  ['br', 'br'],
]);
const ACCEPTED_CODINGS = 'gzip, deflate, br';
const IDENTITY = { coding: 'identity' } as const;

function hasBody(ctx: Context): boolean {
  return ctx.req.headers['transfer-encoding'] !== undefined || ctx.req.headers['content-length'] !== undefined;
}

/**
 * The request body's content coding as the decoder spells it (`identity` when none), or the header as sent
 * when it names a coding we do not decode or a chain of codings.
 */
function contentCoding(ctx: Context): { coding: string } | { unsupported: string } {
  const header = ctx.req.headers['content-encoding'] ?? '';
  if (header === '') return IDENTITY;
  const codings = header
    .split(',')
    .map((part) => part.trim().toLowerCase())
    .filter((part) => part && part !== 'identity');
  if (!codings.length) return IDENTITY;
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
    const encoding = hasBody(ctx) ? contentCoding(ctx) : IDENTITY;
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
  // Not an async function: a request passes on without a promise of its own.
  return (ctx, next) => {
    if (!ctx.path.startsWith(`${prefix}/`) || !hasBody(ctx)) return next();
    const encoding = contentCoding(ctx);
    if ('coding' in encoding && encoding.coding === 'identity') return next();
    ctx.status = 415;
    ctx.set('Accept-Encoding', 'identity');
    ctx.body = {
      error: 'invalid_request',
      error_description: 'request bodies with a Content-Encoding are not supported here',
    };
    return undefined;
  };
}

/** Methods whose JSON bodies are read (koa-body's default); the others' bodies are left unread, as there. */
const PARSED_METHODS = new Set(['POST', 'PUT', 'PATCH']);
/** `application/json` as nearly every client sends it; any other spelling or JSON type takes the general parser. */
const PLAIN_JSON = /^application\/json(?:\s*;\s*charset="?utf-8"?)?$/i;
const DIGITS = /^\d{1,9}$/;
/** Strict JSON: an object or an array, after the whitespace RFC 8259 allows. */
const STRICT_JSON = /^[ \t\n\r]*[[{]/;
/** A `__proto__` key, however escaped (the check of @hapi/bourne, which the general parser uses). */
const PROTO_KEY =
  /"(?:_|\\u005[Ff])(?:_|\\u005[Ff])(?:p|\\u0070)(?:r|\\u0072)(?:o|\\u006[Ff])(?:t|\\u0074)(?:o|\\u006[Ff])(?:_|\\u005[Ff])(?:_|\\u005[Ff])"\s*:/;

/** What koa-body throws for a body that is not strict JSON: a 400, which the API answers `guard.invalid_json`. */
function notJson(message: string): Error {
  return Object.assign(new SyntaxError(message), { status: 400, type: 'entity.parse.failed' });
}

function hasProtoKey(value: unknown): boolean {
  const pending: unknown[] = [value];
  while (pending.length) {
    const node = pending.pop();
    if (typeof node !== 'object' || node === null) continue;
    if (Object.hasOwn(node, '__proto__')) return true;
    for (const item of Object.values(node)) if (typeof item === 'object' && item !== null) pending.push(item);
  }
  return false;
}

/** Parses a request body as koa-body's strict JSON parser does: empty is `{}`, only objects and arrays, no `__proto__` key. */
function parseStrictJson(text: string): unknown {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (body === '') return {};
  if (!STRICT_JSON.test(body)) throw notJson('invalid JSON, only supports object and array');
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (error) {
    throw notJson((error as Error).message);
  }
  if (PROTO_KEY.test(body) && hasProtoKey(value)) throw notJson('Object contains forbidden prototype property');
  return value;
}

/** The byte length of a plain JSON request body the direct path may read, or `undefined` for koa-body's path. */
function plainJsonLength(ctx: Context, limit: number): number | undefined {
  const { headers } = ctx.req;
  const length = headers['content-length'];
  if (length === undefined || !DIGITS.test(length) || headers['content-encoding'] !== undefined) return undefined;
  const type = headers['content-type'];
  if (type === undefined || !PLAIN_JSON.test(type) || headers['transfer-encoding'] !== undefined) return undefined;
  const bytes = Number(length);
  return bytes > limit ? undefined : bytes;
}

/** The whole body, when it has arrived and waits unread in the request's buffer. */
function arrived(ctx: Context, bytes: number): string | undefined {
  if (bytes === 0) return '';
  const { req } = ctx;
  // The parser never buffers more than the declared length, so that many bytes are the whole body.
  if (req.readableLength !== bytes || req.readableFlowing || req.readableEnded) return undefined;
  return (req.read() as Buffer).toString('utf8');
}

/**
 * The management API's JSON body parser (koa-body, strict JSON, `limit` bytes after decoding), behind
 * `parseBody`'s coding checks. A plain JSON body of a declared length that has arrived in full (the usual small
 * request, parsed from the same packets as its headers) is taken from the request's buffer and parsed directly,
 * with koa-body's strictness and errors, without its stream plumbing; everything else goes through koa-body.
 */
export function parseJsonBody(limit: number): Middleware {
  const general = koaBody({
    json: true,
    jsonLimit: limit,
    jsonStrict: true,
    urlencoded: false,
    text: false,
    multipart: false,
  });
  return parseBody(async (ctx, next) => {
    if (!PARSED_METHODS.has(ctx.method)) return next();
    const bytes = plainJsonLength(ctx, limit);
    if (bytes === undefined) return general(ctx, next);
    // The middleware runs while the parser is still on the headers: what came with them is buffered after this turn.
    let text = arrived(ctx, bytes);
    if (text === undefined) {
      await Promise.resolve();
      text = arrived(ctx, bytes);
    }
    if (text === undefined) return general(ctx, next);
    (ctx.request as { body?: unknown }).body = parseStrictJson(text);
    return next();
  });
}
