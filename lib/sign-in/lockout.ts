import { errors } from '../errors.ts';
import type { EventBus } from '../events/bus.ts';
import type { Identifier } from '../events/payloads.ts';
import type { KeyValueStore } from '../ports/kv.ts';

export type { Identifier } from '../events/payloads.ts';

export interface LockoutPolicy {
  /** Failed verifications that lock; also the most passwords evaluated per window. */
  threshold: number;
  /** How long a lock lasts; also how long attempts are remembered without a success. */
  lockSeconds: number;
}

/** A reserved attempt: exactly one of its outcomes is reported once the secret has been checked. */
export interface LockoutAttempt {
  /** Records the failure; true when the subject is locked now (this failure crossed the threshold or a lock exists). */
  failed(): Promise<boolean>;
  /** Starts the count over; false when a lock appeared meanwhile, which refuses even this correct attempt. */
  succeeded(): Promise<boolean>;
}

/** What became of a verification run under the policy. */
export type LockoutOutcome = 'passed' | 'failed' | 'locked';

/**
 * The budget an attempt spends: the account the identifier names, so its email and username share one count,
 * or the typed identifier itself when it names no account (any string can be tried, known or not).
 */
function subjectOf(identifier: Identifier, accountId: string | undefined): string {
  return accountId ? `account:${accountId}` : `identifier:${identifier.type}:${identifier.value}`;
}

/**
 * Brute-force protection counted in the key-value store (Redis when shared, so every process sees the same
 * count). Each attempt takes a numbered reservation before its secret is checked; only the first `threshold`
 * reservations of a window are evaluated, however many arrive at once. The failure that reaches the threshold
 * locks the subject: every attempt is refused, even a correct one, until the lock expires, and
 * Identifier.Lockout is published once per lock.
 */
export function createLockout(deps: {
  kv: KeyValueStore;
  bus: EventBus;
  policy: LockoutPolicy | (() => Promise<LockoutPolicy>);
}) {
  const { kv } = deps;
  /** The policy in force (the sign-in experience's sentinelPolicy can change it), read once per attempt. */
  const current = async (): Promise<LockoutPolicy> => (typeof deps.policy === 'function' ? deps.policy() : deps.policy);

  const lockout = {
    /** Null when the attempt must be refused as locked without checking its secret. */
    async reserve(identifier: Identifier, accountId?: string): Promise<LockoutAttempt | null> {
      const policy = await current();
      const lockMs = policy.lockSeconds * 1000;
      const subject = subjectOf(identifier, accountId);
      const keys = {
        attempts: `lockout:attempts:${subject}`,
        failures: `lockout:failures:${subject}`,
        lock: `lockout:lock:${subject}`,
      };
      if ((await kv.get(keys.lock)) !== null) return null;
      // The increment is the check: each caller gets its own number, so concurrent attempts cannot all pass.
      if ((await kv.incr(keys.attempts, lockMs)) > policy.threshold) return null;

      return {
        async failed() {
          if ((await kv.incr(keys.failures, lockMs)) < policy.threshold) return false;
          // Only the request that creates the lock announces it, however many fail at once.
          if (await kv.setIfAbsent(keys.lock, '1', lockMs)) {
            await deps.bus.emit('Identifier.Lockout', { type: identifier.type, value: identifier.value });
          }
          return true;
        },
        async succeeded() {
          if ((await kv.get(keys.lock)) !== null) return false;
          await kv.del(keys.attempts);
          await kv.del(keys.failures);
          return true;
        },
      };
    },

    /**
     * One verification of any kind (password, code, one-time token) under the policy: `check` runs only when
     * the attempt got a reservation, and says whether the secret was right. The failure that locks, and every
     * attempt while locked, come back as `locked`.
     */
    async verify(
      identifier: Identifier,
      accountId: string | undefined,
      check: () => Promise<boolean>,
    ): Promise<LockoutOutcome> {
      const attempt = await lockout.reserve(identifier, accountId);
      if (!attempt) return 'locked';
      if (!(await check())) return (await attempt.failed()) ? 'locked' : 'failed';
      return (await attempt.succeeded()) ? 'passed' : 'locked';
    },
  };
  return lockout;
}

export type Lockout = ReturnType<typeof createLockout>;

/** The answer to an attempt the lockout refuses, in every flow that counts secrets (sign-in, MFA, the Account API). */
export function lockedError(subject: 'account' | 'identifier') {
  return errors.rateLimited(
    'session.verification_blocked_too_many_attempts',
    `too many failed verifications for this ${subject}; it is locked for a while, try again later`,
  );
}
