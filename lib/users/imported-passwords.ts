import { createHash, timingSafeEqual } from 'node:crypto';

/** Logto's `passwordAlgorithm` values for digests imported from another system (its `Legacy` format aside). */
export const IMPORTED_PASSWORD_ALGORITHMS = [
  'Argon2i',
  'Argon2id',
  'Argon2d',
  'Bcrypt',
  'SHA1',
  'SHA256',
  'MD5',
] as const;
export type ImportedPasswordAlgorithm = (typeof IMPORTED_PASSWORD_ALGORITHMS)[number];

/** Stored form: `imported$<algorithm>$<digest>`, told apart from our own `scrypt$…` digests by its scheme. */
const SCHEME = 'imported';

const HEX_LENGTH = { SHA1: 40, SHA256: 64, MD5: 32 } as const;
const ARGON2_VARIANT = { Argon2i: 'argon2i', Argon2id: 'argon2id', Argon2d: 'argon2d' } as const;

/**
 * Work a stored digest may ask of a sign-in, so an imported record cannot stall or exhaust the service:
 * bcrypt cost up to 15 (32,768 rounds), Argon2 up to 64 MiB, 16 passes and 16 lanes.
 */
const MAX_BCRYPT_COST = 15;
const MAX_ARGON2 = { m: 65_536, t: 16, p: 16 } as const;

const BCRYPT = /^\$2[aby]\$(\d{2})\$[./A-Za-z0-9]{53}$/;
const ARGON2 =
  /^\$(argon2(?:id|i|d))\$v=19\$m=(\d{1,6}),t=(\d{1,3}),p=(\d{1,3})\$[A-Za-z0-9+/]{11,}\$[A-Za-z0-9+/]{16,}$/;

/** Checks a digest's format for its algorithm; its stored form, or `undefined` when it is not one. */
export function importedDigest(algorithm: ImportedPasswordAlgorithm, digest: string): string | undefined {
  if (algorithm === 'SHA1' || algorithm === 'SHA256' || algorithm === 'MD5') {
    const hex = digest.toLowerCase();
    return hex.length === HEX_LENGTH[algorithm] && /^[0-9a-f]+$/.test(hex)
      ? `${SCHEME}$${algorithm}$${hex}`
      : undefined;
  }
  if (algorithm === 'Bcrypt') {
    const cost = BCRYPT.exec(digest)?.[1];
    return cost && Number(cost) >= 4 && Number(cost) <= MAX_BCRYPT_COST
      ? `${SCHEME}$${algorithm}$${digest}`
      : undefined;
  }
  const match = ARGON2.exec(digest);
  if (!match || match[1] !== ARGON2_VARIANT[algorithm]) return undefined;
  const [m, t, p] = [Number(match[2]), Number(match[3]), Number(match[4])];
  const bounded = m >= 8 * p && m <= MAX_ARGON2.m && t >= 1 && t <= MAX_ARGON2.t && p >= 1 && p <= MAX_ARGON2.p;
  return bounded ? `${SCHEME}$${algorithm}$${digest}` : undefined;
}

export function isImportedDigest(stored: string): boolean {
  return stored.startsWith(`${SCHEME}$`);
}

/**
 * Checks a password against an imported digest, as the system that made it did (the password's UTF-8 bytes,
 * not normalized); a malformed record never matches. Unsalted SHA and MD5 digests are compared in constant time.
 */
export async function verifyImportedPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, algorithm, ...rest] = stored.split('$');
  const digest = rest.join('$');
  if (scheme !== SCHEME || !IMPORTED_PASSWORD_ALGORITHMS.includes(algorithm as ImportedPasswordAlgorithm)) return false;
  const known = algorithm as ImportedPasswordAlgorithm;
  if (importedDigest(known, digest) !== stored) return false;
  if (known === 'SHA1' || known === 'SHA256' || known === 'MD5') {
    const actual = createHash(known.toLowerCase()).update(password, 'utf8').digest();
    return timingSafeEqual(actual, Buffer.from(digest, 'hex'));
  }
  try {
    // Loaded with the first imported bcrypt or Argon2 digest: most instances never see one.
    const { argon2Verify, bcryptVerify } = await import('hash-wasm');
    return known === 'Bcrypt'
      ? await bcryptVerify({ password, hash: digest })
      : await argon2Verify({ password, hash: digest });
  } catch {
    return false;
  }
}
