import type { DocumentStore } from '../ports/documents.ts';
import type { KeyValueStore } from '../ports/kv.ts';
import { newId } from '../ids.ts';
import { within } from '../deadline.ts';
import { sharedReads } from '../shared-reads.ts';
import type { HookRecord, HooksRepository } from './hooks.ts';

/** Every hook, indexed for fan-out (by event, enabled only) and for delivery (by id, any state). */
export interface HookSnapshot {
  byId(id: string): HookRecord | undefined;
  subscribersOf(event: string): readonly HookRecord[];
  /** Whether some enabled hook asks for `ordering: "entity"` (otherwise nothing need be noted for ordering). */
  readonly ordered: boolean;
}

export interface HookCache {
  current(): Promise<HookSnapshot>;
  /** Call after every committed hook change, in whichever process made it. */
  invalidate(): Promise<void>;
}

const VERSION_KEY = 'webhooks:hooks-version';

/**
 * Hooks are read on every event and every delivery attempt, so they are held in memory. Invalidation
 * works across processes (web replicas, workers): every change writes a fresh random version to the
 * key-value store (Redis when shared), and a snapshot is reused only while that version is unchanged. The
 * version is read before loading, so a change that lands during a load is picked up on the next lookup.
 */
export function createHookCache(deps: { hooks: HooksRepository; kv: KeyValueStore; store?: DocumentStore }): HookCache {
  let cached: { version: string | null; snapshot: HookSnapshot } | undefined;
  // Concurrent lookups share one version read, and one load per version; a local change starts a new read, so this
  // process always sees its own changes at once.
  const versions = sharedReads<string | null | typeof UNKNOWN>();
  const loads = sharedReads<HookSnapshot>();

  async function load(version: string | null): Promise<HookSnapshot> {
    const snapshot = indexHooks(await deps.hooks.all());
    // Even if an older load finishes last, the version check on the next lookup replaces it.
    cached = { version, snapshot };
    return snapshot;
  }

  return {
    async current() {
      const version = await versions.read(VERSION_KEY, () => readVersion(deps.kv));
      // Redis slow or down: no telling whether the snapshot is current, so read afresh. An event with
      // subscribers then fails at enqueue (same Redis); one without must not fail because of the cache.
      if (version === UNKNOWN) return indexHooks(await deps.hooks.all());
      if (cached && cached.version === version) return cached.snapshot;
      // A version is a fresh id, never empty: the empty key is the store that has none yet.
      return loads.read(version ?? '', () => load(version));
    },
    async invalidate() {
      const bump = async () => {
        await deps.kv.set(VERSION_KEY, newId());
        versions.forget(VERSION_KEY);
      };
      // Inside a transaction the change is not visible yet: a load before the commit would cache the hooks without it
      // under the new version, so the version changes again once it committed.
      deps.store?.currentTransaction()?.afterCommit(bump);
      await bump();
    },
  };
}

const UNKNOWN = Symbol('unknown version');
/** A dead Redis makes a command wait through its reconnection attempts, seconds at a time. */
const VERSION_WAIT_MS = 200;

function readVersion(kv: KeyValueStore): Promise<string | null | typeof UNKNOWN> {
  return within(
    kv.get(VERSION_KEY).catch((): typeof UNKNOWN => UNKNOWN),
    VERSION_WAIT_MS,
    UNKNOWN,
  );
}

function indexHooks(records: HookRecord[]): HookSnapshot {
  const byId = new Map(records.map((record) => [record.id, record]));
  const byEvent = new Map<string, HookRecord[]>();
  for (const record of records) {
    if (!record.enabled) continue;
    for (const event of record.events) {
      const list = byEvent.get(event) ?? [];
      list.push(record);
      byEvent.set(event, list);
    }
  }
  return {
    byId: (id) => byId.get(id),
    subscribersOf: (event) => byEvent.get(event) ?? [],
    ordered: records.some((record) => record.enabled && record.ordering === 'entity'),
  };
}
