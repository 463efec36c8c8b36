import { hash, randomFillSync, timingSafeEqual } from 'node:crypto';

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';
const ALPHABET_CODES = Buffer.from(ALPHABET, 'latin1');

/**
 * Random bytes for ids and secrets, drawn from a pool that one call to the CSPRNG refills: a call per id
 * costs more than the id itself. Every byte is handed out once; the pool is never shared across processes.
 */
const POOL_BYTES = 4096;
const pool = Buffer.allocUnsafe(POOL_BYTES);
let used = POOL_BYTES;

/** The offset in `pool` of `count` fresh random bytes (at most POOL_BYTES), which the caller reads right away. */
function take(count: number): number {
  if (used + count > POOL_BYTES) {
    randomFillSync(pool);
    used = 0;
  }
  const offset = used;
  used += count;
  return offset;
}

/** Where ids are spelled before they become strings: one flat string each, not a chain of concatenations. */
const spelling = Buffer.allocUnsafe(64);

/** A random lowercase alphanumeric id (21 characters ≈ 108 bits), the shape Logto uses for entity ids. */
export function newId(length = 21): string {
  if (length > spelling.length) return newId(spelling.length) + newId(length - spelling.length);
  let filled = 0;
  while (filled < length) {
    const want = Math.min((length - filled) * 2, POOL_BYTES);
    const offset = take(want);
    for (let i = offset; i < offset + want && filled < length; i += 1) {
      const byte = pool[i]!;
      // 252 = 7 × 36: dropping bytes at or above it keeps every character equally likely.
      if (byte < 252) spelling[filled++] = ALPHABET_CODES[byte % 36]!;
    }
  }
  return spelling.toString('latin1', 0, length);
}

/**
 * A random id of `newId`'s shape whose first 9 characters spell the time in ms (base 36), the other 12 random (≈ 62
 * bits): ids made later sort after, so an index of them grows at its end instead of at random places.
 */
export function timeOrderedId(): string {
  return Date.now().toString(36).padStart(9, '0') + newId(12);
}

/** An opaque high-entropy secret (32 random bytes, base64url) with a recognisable prefix. */
export function newSecret(prefix = ''): string {
  const offset = take(32);
  return `${prefix}${pool.toString('base64url', offset, offset + 32)}`;
}

/**
 * Digest for high-entropy secrets (client secrets, subject tokens): SHA-256 is enough because the input
 * cannot be guessed; passwords use a memory-hard KDF instead.
 */
export function digest(secret: string): string {
  // The one-shot form: no Hash object per call (this runs on every client authentication).
  return hash('sha256', secret, 'hex');
}

/**
 * An id that `text` determines: `prefix`, then 27 base64url characters (162 bits) of the text's SHA-256. The same
 * text always gives the same id, which is what makes a queue or a store recognise something it already holds.
 */
export function idOfText(prefix: string, text: string): string {
  return `${prefix}${hash('sha256', text, 'base64url').slice(0, 27)}`;
}

/** Constant-time comparison of a presented secret against a stored digest. */
export function matchesDigest(secret: string, storedDigest: string): boolean {
  // The secret's digest as stored, decoded into the pooled Buffer space: a 'buffer' result is an ArrayBuffer of its own
  // per call, and this runs on every client authentication.
  const a = Buffer.from(digest(secret), 'hex');
  const b = Buffer.from(storedDigest, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}
