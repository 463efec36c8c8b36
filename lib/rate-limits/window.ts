import type { KeyValueStore } from '../ports/kv.ts';

export interface WindowPolicy {
  /** Counted events allowed per window; 0 switches the limit off. */
  limit: number;
  windowSeconds: number;
}

/**
 * A fixed-window counter per key in the key-value store (Redis when shared, so every process counts together).
 * Each increment is atomic and returns its own number, so however many requests arrive at once only the first
 * `limit` of a window fit.
 */
export interface WindowLimit {
  /** Counts one event; the seconds to wait when this event went past the limit, undefined when it fit. */
  count(key: string): Promise<number | undefined>;
  /** Where `key`'s counter is stored, to read it with other counters in one round trip; undefined when the limit is off. */
  counterOf(key: string): string | undefined;
  /**
   * From the counter's value, read already: the seconds until the key may try again when its window is full,
   * undefined at once when it may go on.
   */
  blockedByValue(counter: string, value: string | null): Promise<number> | undefined;
}

export function createWindowLimit(kv: KeyValueStore, name: string, policy: WindowPolicy): WindowLimit {
  const windowMs = policy.windowSeconds * 1000;
  const keyOf = (key: string) => `ratelimit:${name}:${key}`;

  async function secondsLeft(counter: string): Promise<number> {
    const ttl = await kv.ttl(counter);
    // The window may have closed between the two calls; the next request starts a new one.
    return Math.max(1, Math.ceil((ttl > 0 ? ttl : 1000) / 1000));
  }

  return {
    counterOf: (key) => (policy.limit === 0 ? undefined : keyOf(key)),
    blockedByValue: (counter, value) =>
      value === null || Number(value) < policy.limit ? undefined : secondsLeft(counter),
    async count(key) {
      if (policy.limit === 0) return undefined;
      const counter = keyOf(key);
      if ((await kv.incr(counter, windowMs)) <= policy.limit) return undefined;
      return secondsLeft(counter);
    },
  };
}
