import type { KeyValueStore } from '../ports/kv.ts';
import { experienceRecord, type ExperienceRecord } from './types.ts';

/**
 * One experience record per OIDC interaction, in the key-value store (Redis when shared, so every process
 * sees it), living exactly as long as the interaction.
 */
export function createExperienceStore(kv: KeyValueStore) {
  const keyOf = (uid: string) => `experience:${uid}`;

  return {
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
      return result.success ? result.data : undefined;
    },
    async save(uid: string, record: ExperienceRecord, ttlSeconds: number): Promise<void> {
      await kv.set(keyOf(uid), JSON.stringify(record), ttlSeconds * 1000);
    },
    async remove(uid: string): Promise<void> {
      await kv.del(keyOf(uid));
    },
  };
}

