import { createHmac, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import { errors } from '../errors.ts';
import type { KeyValueStore } from '../ports/kv.ts';
import type { CodePurpose } from './templates.ts';

export interface Recipient {
  type: 'email' | 'phone';
  /** An email address (lower-cased by the caller) or a phone number. */
  value: string;
}

/** Verification attempts one code allows; the next one is refused even when it is right. */
export const MAX_CODE_ATTEMPTS = 5;
export const CODE_DIGITS = 6;

/** As kept in the key-value store: never the code, only a salted HMAC of it. */
interface StoredCode {
  id: string;
  salt: string;
  digest: string;
  expiresAt: number;
}

/** A code drawn but not yet in force: it replaces the previous one only once `commit` has run. */
export interface IssuedCode {
  code: string;
  commit(): Promise<void>;
}

/** HMAC-SHA256 keyed by the code's own salt: 32 bytes whatever the candidate, so comparing never depends on its length. */
export function codeDigest(salt: Buffer, code: string): Buffer {
  return createHmac('sha256', salt).update(code, 'utf8').digest();
}

/** Constant-time: both sides are digests of equal length. */
export function digestsEqual(expected: Buffer, actual: Buffer): boolean {
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

function parse(value: string | null): StoredCode | null {
  if (value === null) return null;
  try {
    const stored = JSON.parse(value) as Partial<StoredCode>;
    const complete =
      typeof stored.id === 'string' &&
      typeof stored.salt === 'string' &&
      typeof stored.digest === 'string' &&
      typeof stored.expiresAt === 'number';
    return complete ? (stored as StoredCode) : null;
  } catch {
    return null;
  }
}

/**
 * Six-digit, single-use codes per (purpose, recipient), kept hashed in the key-value store (Redis when shared,
 * so every process sees the same code). A new code replaces the previous one. A record is kept for twice the
 * lifetime, so that a late attempt hears `expired` rather than `not_found`.
 */
export function createVerificationCodes(deps: { kv: KeyValueStore; ttlSeconds: number }) {
  const { kv } = deps;
  const ttlMs = deps.ttlSeconds * 1000;
  const keyOf = (purpose: CodePurpose, to: Recipient) => `vcode:${purpose}:${to.type}:${to.value}`;

  return {
    ttlSeconds: deps.ttlSeconds,

    /** A new code; its lifetime counts from now, when it was asked for, however long it then takes to go out. */
    issue(purpose: CodePurpose, to: Recipient): IssuedCode {
      const code = String(randomInt(0, 10 ** CODE_DIGITS)).padStart(CODE_DIGITS, '0');
      const expiresAt = Date.now() + ttlMs;
      return {
        code,
        async commit() {
          const salt = randomBytes(16);
          const stored: StoredCode = {
            id: randomBytes(12).toString('base64url'),
            salt: salt.toString('base64'),
            digest: codeDigest(salt, code).toString('base64'),
            expiresAt,
          };
          await kv.set(keyOf(purpose, to), JSON.stringify(stored), 2 * ttlMs);
        },
      };
    },

    /** Spends the code when it matches; otherwise throws the reason, counting the attempt. */
    async verify(purpose: CodePurpose, to: Recipient, code: string): Promise<void> {
      const stored = parse(await kv.get(keyOf(purpose, to)));
      if (!stored || (await kv.get(`vcode:used:${stored.id}`)) !== null) {
        throw errors.invalid(
          'verification_code.not_found',
          'no verification code is pending for this recipient; send one first',
        );
      }
      const now = Date.now();
      if (now >= stored.expiresAt) {
        throw errors.invalid('verification_code.expired', 'the verification code has expired; request a new one');
      }
      const keepMs = stored.expiresAt + ttlMs - now;
      // Counted before the comparison, so concurrent guesses cannot all be evaluated.
      if ((await kv.incr(`vcode:attempts:${stored.id}`, keepMs)) > MAX_CODE_ATTEMPTS) {
        throw errors.rateLimited(
          'verification_code.exceed_max_try',
          'too many attempts for this code; request a new one',
        );
      }
      if (!digestsEqual(Buffer.from(stored.digest, 'base64'), codeDigest(Buffer.from(stored.salt, 'base64'), code))) {
        throw errors.invalid('verification_code.code_mismatch', 'the verification code is not correct');
      }
      // Of concurrent correct attempts, exactly one spends the code.
      if (!(await kv.setIfAbsent(`vcode:used:${stored.id}`, '1', keepMs))) {
        throw errors.invalid(
          'verification_code.not_found',
          'no verification code is pending for this recipient; send one first',
        );
      }
    },
  };
}
