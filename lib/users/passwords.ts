import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { isImportedDigest, verifyImportedPassword } from './imported-passwords.ts';

/** Whether a stored digest is replaced by one of ours at the next successful sign-in (an imported one). */
export const needsRehash = (digest: string | null | undefined): boolean => Boolean(digest && isImportedDigest(digest));

/**
 * Outer bounds of any password: `maxLength` caps what the APIs accept and what a sign-in experience's policy may
 * allow; the policy itself (lib/sign-in-experience) decides which passwords are good enough.
 */
export const PASSWORD_POLICY = { minLength: 8, maxLength: 256 } as const;

/**
 * scrypt cost: N = 2^15, r = 8, p = 1 takes about 32 MiB and tens of milliseconds per hash, the
 * interactive-login setting scrypt's author recommends. Parameters are stored with each digest, so they
 * can be raised later without invalidating existing passwords.
 */
const COST = { N: 2 ** 15, r: 8, p: 1 } as const;
const SALT_BYTES = 16;
const KEY_BYTES = 32;
/** Upper bound of the cost a stored digest may ask for, so a corrupt record cannot exhaust memory. */
const MAX_N = 2 ** 20;

function derive(password: string, salt: Buffer, cost: { N: number; r: number; p: number }): Promise<Buffer> {
  // Node refuses to run scrypt above `maxmem` (default 32 MiB); the need is 128 · N · r bytes, plus slack.
  const options: ScryptOptions = { ...cost, maxmem: 128 * cost.N * cost.r * 2 };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFKC'), salt, KEY_BYTES, options, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

/** `scrypt$N$r$p$salt$hash`, salt and hash in base64. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, COST);
  return ['scrypt', COST.N, COST.r, COST.p, salt.toString('base64'), key.toString('base64')].join('$');
}

interface ParsedDigest {
  cost: { N: number; r: number; p: number };
  salt: Buffer;
  key: Buffer;
}

function parseDigest(digest: string): ParsedDigest | undefined {
  const [scheme, n, r, p, salt, key, ...rest] = digest.split('$');
  if (scheme !== 'scrypt' || rest.length > 0 || !salt || !key) return undefined;
  const cost = { N: Number(n), r: Number(r), p: Number(p) };
  const validN = Number.isInteger(cost.N) && cost.N > 1 && cost.N <= MAX_N && (cost.N & (cost.N - 1)) === 0;
  const validRp = [cost.r, cost.p].every((value) => Number.isInteger(value) && value >= 1 && value <= 16);
  if (!validN || !validRp) return undefined;
  return { cost, salt: Buffer.from(salt, 'base64'), key: Buffer.from(key, 'base64') };
}

/**
 * Constant-time check of a password against a stored digest (ours, or one imported from another system); a
 * malformed digest never matches.
 */
export async function verifyPassword(password: string, digest: string | null | undefined): Promise<boolean> {
  if (digest && isImportedDigest(digest)) return verifyImportedPassword(password, digest);
  const parsed = digest ? parseDigest(digest) : undefined;
  if (!parsed || parsed.key.length !== KEY_BYTES) return false;
  const key = await derive(password, parsed.salt, parsed.cost);
  return timingSafeEqual(key, parsed.key);
}
