import { randomBytes, hash, timingSafeEqual } from 'node:crypto';

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';

/** A random lowercase alphanumeric id (21 characters ≈ 108 bits), the shape Logto uses for entity ids. */
export function newId(length = 21): string {
  const bytes = randomBytes(length * 2);
  let id = '';
  for (let i = 0; i < bytes.length && id.length < length; i += 1) {
    const byte = bytes[i]!;
    // 252 = 7 × 36: dropping bytes at or above it keeps every character equally likely.
    if (byte < 252) id += ALPHABET[byte % 36];
  }
  return id.length === length ? id : newId(length);
}

/** An opaque high-entropy secret (32 random bytes, base64url) with a recognisable prefix. */
export function newSecret(prefix = ''): string {
  return `${prefix}${randomBytes(32).toString('base64url')}`;
}

/**
 * Digest for high-entropy secrets (client secrets, subject tokens): SHA-256 is enough because the input
 * cannot be guessed; passwords use a memory-hard KDF instead.
 */
export function digest(secret: string): string {
  // The one-shot form: no Hash object per call (this runs on every client authentication).
  return hash('sha256', secret, 'hex');
}

/** Constant-time comparison of a presented secret against a stored digest. */
export function matchesDigest(secret: string, storedDigest: string): boolean {
  const a = hash('sha256', secret, 'buffer');
  const b = Buffer.from(storedDigest, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}
