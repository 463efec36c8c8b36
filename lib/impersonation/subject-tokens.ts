import type { KeyValueStore } from '../ports/kv.ts';
import { digest, newSecret } from '../ids.ts';

/** Recognisable prefix of subject tokens, so a leaked one is easy to spot (and to scan for). */
export const SUBJECT_TOKEN_PREFIX = 'sub_tk_';

export interface SubjectTokenRecord {
  /** A short, non-secret reference to the token for audit logs (a digest prefix). */
  ref: string;
  userId: string;
  context: Record<string, unknown>;
  /** Why the user is impersonated, shown to them; null when none was given. Older tokens have none. */
  reason?: string | null;
  /** The management client that created it. */
  createdBy: string;
  createdAt: number;
  expiresAt: number;
}

/** A live subject token's record, and the digest it is stored under, so that spending it hashes nothing again. */
export interface PeekedSubjectToken {
  digest: string;
  record: SubjectTokenRecord;
}

const key = (tokenDigest: string) => `subject-token:${tokenDigest}`;
/** A user's kill switch: every subject token of theirs created at or before this time (ms) is void. */
const revokedBeforeKey = (userId: string) => `subject-tokens-revoked-before:${userId}`;
/**
 * The audit reference of a token: a digest prefix, which says nothing usable about the token itself. A copy of its own,
 * where a slice would keep the whole digest alive for as long as the audit record that holds it.
 */
const refOfDigest = (tokenDigest: string) => Buffer.from(tokenDigest.slice(0, 16), 'latin1').toString('latin1');

function parse(text: string | null): SubjectTokenRecord | null {
  return text === null ? null : (JSON.parse(text) as SubjectTokenRecord);
}

/**
 * One-time impersonation tokens. Only the token's digest is stored, with the lifetime as TTL. `peek`
 * validates without spending the token; `spend` then spends it atomically (GETDEL), so of any number of
 * concurrent exchanges exactly one wins. A user's unused tokens are voided at once by a time stored beside them:
 * tokens created at or before it are refused, and none outlives it (it is kept as long as a token lives).
 */
export function createSubjectTokens(kv: KeyValueStore, ttlSeconds: number) {
  async function revokedBefore(userId: string): Promise<number> {
    return Number((await kv.get(revokedBeforeKey(userId))) ?? 0);
  }

  return {
    ttlSeconds,
    /** A new token and its record, at once; `stored` settles once the token is kept, so that writes can go with it. */
    issue(input: { userId: string; context: Record<string, unknown>; reason: string | null; createdBy: string }) {
      const token = newSecret(SUBJECT_TOKEN_PREFIX);
      const tokenDigest = digest(token);
      const now = Date.now();
      const record: SubjectTokenRecord = {
        ref: refOfDigest(tokenDigest),
        ...input,
        createdAt: now,
        expiresAt: now + ttlSeconds * 1000,
      };
      return { token, record, stored: kv.set(key(tokenDigest), JSON.stringify(record), ttlSeconds * 1000) };
    },
    /** The reference a token has (or would have had) in the audit, also for tokens that were never issued. */
    refOf(token: string): string {
      return refOfDigest(digest(token));
    },
    async peek(token: string): Promise<PeekedSubjectToken | null> {
      if (!token.startsWith(SUBJECT_TOKEN_PREFIX)) return null;
      const tokenDigest = digest(token);
      const record = parse(await kv.get(key(tokenDigest)));
      if (!record || record.createdAt <= (await revokedBefore(record.userId))) return null;
      return { digest: tokenDigest, record };
    },
    /** Voids every subject token of the user created up to now. */
    async revokeUnusedOf(userId: string): Promise<void> {
      // Never earlier than a time already stored: a clock a millisecond behind must not revive a voided token.
      const now = Math.max(Date.now(), await revokedBefore(userId));
      await kv.set(revokedBeforeKey(userId), String(now), ttlSeconds * 1000 + 60_000);
    },
    /** Whether the user's kill switch voided this token since it was peeked (an exchange running beside it). */
    async wasRevoked(record: SubjectTokenRecord): Promise<boolean> {
      return record.createdAt <= (await revokedBefore(record.userId));
    },
    /**
     * Spends a peeked token: null when it expired or another exchange spent it since; otherwise the spending's
     * durability (`durable`, see KeyValueStore.take), so that the writes that go with it can share its commit.
     */
    async spend(peeked: PeekedSubjectToken): Promise<{ durable: Promise<void> } | null> {
      const { value, durable } = await kv.take(key(peeked.digest));
      return value === null ? null : { durable };
    },
  };
}

export type SubjectTokens = ReturnType<typeof createSubjectTokens>;
