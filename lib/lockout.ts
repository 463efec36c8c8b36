import type { EventBus } from './events/bus.ts';
import type { KeyValueStore } from './ports/kv.ts';

export interface Identifier {
  type: 'email' | 'phone' | 'username';
  value: string;
}

export interface LockoutPolicy {
  /** Consecutive failed verifications that lock the identifier. */
  threshold: number;
  /** How long a lock lasts; also how long failures are remembered without a success. */
  lockSeconds: number;
}

const key = (kind: 'failures' | 'lock', identifier: Identifier) => `lockout:${kind}:${identifier.type}:${identifier.value}`;

/**
 * Brute-force protection per identifier, counted in the key-value store (Redis when shared, so every
 * process sees the same count). Crossing the threshold locks the identifier: every attempt is refused, even a
 * correct one, until the lock expires; Identifier.Lockout is published once per lock.
 */
export function createLockout(deps: { kv: KeyValueStore; bus: EventBus; policy: LockoutPolicy }) {
  const { kv, policy } = deps;
  const lockMs = policy.lockSeconds * 1000;

  return {
    async isLocked(identifier: Identifier): Promise<boolean> {
      return (await kv.get(key('lock', identifier))) !== null;
    },
    async recordFailure(identifier: Identifier): Promise<void> {
      const failures = await kv.incr(key('failures', identifier), lockMs);
      if (failures < policy.threshold) return;
      await kv.del(key('failures', identifier));
      // Only the request that creates the lock announces it, however many fail at once.
      if (await kv.setIfAbsent(key('lock', identifier), '1', lockMs)) {
        await deps.bus.publish([{
          event: 'Identifier.Lockout', createdAt: new Date().toISOString(), type: identifier.type, value: identifier.value,
        }]);
      }
    },
    async recordSuccess(identifier: Identifier): Promise<void> {
      await kv.del(key('failures', identifier));
    },
  };
}

export type Lockout = ReturnType<typeof createLockout>;
