import { z } from 'zod';

/** Schemas shared by several route modules. */

const MAX_JSON_DEPTH = 16;

/**
 * Why a free-form JSON object would be unsafe to store: `$`-prefixed keys read as operators to MongoDB, a NUL
 * character cannot be part of a BSON key, `__proto__` does not survive parsing into a plain object, and
 * unbounded nesting costs stack later on.
 */
function unsafeJson(value: unknown): string | undefined {
  const pending: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  while (pending.length) {
    const next = pending.pop()!;
    if (typeof next.value !== 'object' || next.value === null) continue;
    if (next.depth > MAX_JSON_DEPTH) return `must not nest deeper than ${MAX_JSON_DEPTH} levels`;
    const entries = Array.isArray(next.value)
      ? next.value.map((item) => ['', item] as const)
      : Object.entries(next.value);
    if (!Array.isArray(next.value) && Object.hasOwn(next.value, '__proto__'))
      return 'must not contain the key __proto__';
    for (const [key, item] of entries) {
      if (key.startsWith('$')) return `keys must not start with $ (${key})`;
      if (key.includes('\0')) return 'keys must not contain NUL characters';
      pending.push({ value: item, depth: next.depth + 1 });
    }
  }
  return undefined;
}

/** Text that becomes a BSON key or a regular expression, where a NUL character cannot be stored. */
export const withoutNul = (text: z.ZodString) =>
  text.refine((value) => !value.includes('\0'), 'must not contain NUL characters');

/** Scope names travel in space-separated token claims, so they are OAuth scope tokens (RFC 6749 §3.3). */
export const scopeToken = z
  .string()
  .min(1)
  .max(256)
  .regex(/^[\x21\x23-\x5B\x5D-\x7E]+$/, 'must be a valid OAuth scope token (no spaces or quotes)');

/** A free-form JSON object (`customData`), checked before parsing so that no key is silently dropped. */
export const jsonObject = z.preprocess(
  (value, ctx) => {
    const problem = unsafeJson(value);
    if (problem) ctx.issues.push({ code: 'custom', message: problem, input: value });
    return value;
  },
  z.record(z.string().max(256), z.unknown()),
);
