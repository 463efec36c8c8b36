import { errors } from '../errors.ts';
import type { KeyValueStore } from '../ports/kv.ts';
import { experienceRecord, type ExperienceRecord } from './types.ts';

/**
 * One experience record per OIDC interaction, in the key-value store (Redis when shared, so every process
 * sees it), living exactly as long as the interaction.
 *
 * A request loads the record, changes it and saves it. Two requests on one interaction at once would each save their
 * own copy and the last would silently drop what the first added (a verification, a profile field). Within a process
 * such requests run one after the other (`serialized`); across processes (a shared Redis) a loaded record is saved
 * only while the stored one is still the text it was loaded from (compare-and-set), otherwise the save is refused
 * with 409 `session.concurrent_update`, and the request's transaction keeps nothing of it.
 */
export function createExperienceStore(kv: KeyValueStore) {
  const keyOf = (uid: string) => `experience:${uid}`;
  /** The stored text each record object was loaded from or last saved as: what a save expects to replace. */
  const storedAs = new WeakMap<ExperienceRecord, string>();
  /** Per interaction, the last piece of work queued on it in this process. */
  const queues = new Map<string, Promise<unknown>>();

  return {
    /** Runs `work` once every piece of work this process queued on the interaction before it has ended. */
    serialized<T>(uid: string, work: () => Promise<T>): Promise<T> {
      const run = (queues.get(uid) ?? Promise.resolve()).then(work, work);
      const settled = run.catch(() => undefined);
      queues.set(uid, settled);
      void settled.then(() => {
        if (queues.get(uid) === settled) queues.delete(uid);
      });
      return run;
    },
    /** The record, or undefined when none was started or it cannot be read back. */
    async load(uid: string): Promise<ExperienceRecord | undefined> {
      const stored = await kv.get(keyOf(uid));
      if (stored === null) return undefined;
      let parsed: unknown;
      try {
        parsed = JSON.parse(stored);
      } catch {
        return undefined;
      }
      const result = experienceRecord.safeParse(parsed);
      if (!result.success) return undefined;
      storedAs.set(result.data, stored);
      return result.data;
    },
    /** Stores a new record as it is; a loaded one only over the version it was loaded from. */
    async save(uid: string, record: ExperienceRecord, ttlSeconds: number): Promise<void> {
      const text = JSON.stringify(record);
      const expected = storedAs.get(record);
      if (expected === undefined) {
        await kv.set(keyOf(uid), text, ttlSeconds * 1000);
      } else if (!(await kv.compareAndSet(keyOf(uid), expected, text, ttlSeconds * 1000))) {
        throw errors.experience(
          'session.concurrent_update',
          'another request changed this sign-in at the same time: send this one again',
        );
      }
      storedAs.set(record, text);
    },
    async remove(uid: string): Promise<void> {
      await kv.del(keyOf(uid));
    },
  };
}
