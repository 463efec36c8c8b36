import type { KeyValueStore } from '../ports/kv.ts';
import { sharedReads } from '../shared-reads.ts';

/**
 * When each hook's current run of failed attempts began, in the key-value store so that every worker
 * process adds to the same run. A hook whose every attempt failed for `disableAfterMs` is to be disabled
 * (Svix disables an endpoint after five days of failures). A run with no attempt for as long again is
 * forgotten. `disableAfterMs` 0 turns this off.
 */
export function createFailureStreaks(deps: { kv: KeyValueStore; disableAfterMs: number }) {
  const { kv, disableAfterMs } = deps;
  const key = (hookId: string) => `webhooks:failing-since:${hookId}`;
  const reads = sharedReads<string | null>();

  return {
    /** Read before an attempt (one read for attempts that ask together): when the hook started failing, if it is failing. */
    async since(hookId: string): Promise<number | null> {
      if (disableAfterMs === 0) return null;
      const value = await reads.read(hookId, () => kv.get(key(hookId))).catch(() => null);
      return value === null ? null : Number(value);
    },

    /**
     * After an attempt, with what `since` read before it: the start of the run when this failure makes it
     * long enough to disable the hook, otherwise null. Never throws: the run is advisory.
     */
    async record(hookId: string, failed: boolean, since: number | null, at: number): Promise<number | null> {
      if (disableAfterMs === 0) return null;
      try {
        if (!failed) {
          if (since !== null) await kv.del(key(hookId));
          return null;
        }
        if (since === null) {
          await kv.setIfAbsent(key(hookId), String(at), 2 * disableAfterMs);
          return null;
        }
      } catch {
        return null;
      }
      return at - since >= disableAfterMs ? since : null;
    },
  };
}

export type FailureStreaks = ReturnType<typeof createFailureStreaks>;
