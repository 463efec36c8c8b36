import type { KeyValueStore } from '../ports/kv.ts';
import { newId } from '../ids.ts';
import { within } from '../deadline.ts';
import type { HookRecord, HooksRepository } from './hooks.ts';

/** Every hook, indexed for fan-out (by event, enabled only) and for delivery (by id, any state). */
export interface HookSnapshot {
  byId(id: string): HookRecord | undefined;
  subscribersOf(event: string): readonly HookRecord[];
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
export function createHookCache(deps: { hooks: HooksRepository; kv: KeyValueStore }): HookCache {
  let cached: { version: string | null; snapshot: HookSnapshot } | undefined;
  let loading: { version: string | null; promise: Promise<HookSnapshot> } | undefined;
  // Concurrent lookups share one version read; a local change starts a new one, so this process always
  // sees its own changes at once.
  let reading: Promise<string | null | typeof UNKNOWN> | undefined;

  function currentVersion(): Promise<string | null | typeof UNKNOWN> {
    if (!reading) {
      const read = readVersion(deps.kv).finally(() => {
        if (reading === read) reading = undefined;
      });
      reading = read;
    }
    return reading;
  }

  async function load(version: string | null): Promise<HookSnapshot> {
    const snapshot = indexHooks(await deps.hooks.all());
    // Even if an older load finishes last, the version check on the next lookup replaces it.
    cached = { version, snapshot };
    return snapshot;
  }

  return {
    async current() {
      const version = await currentVersion();
      // Redis slow or down: no telling whether the snapshot is current, so read afresh. An event with
      // subscribers then fails at enqueue (same Redis); one without must not fail because of the cache.
      if (version === UNKNOWN) return indexHooks(await deps.hooks.all());
      if (cached && cached.version === version) return cached.snapshot;
      if (loading?.version !== version) {
        const promise = load(version).finally(() => {
          if (loading?.promise === promise) loading = undefined;
        });
        loading = { version, promise };
      }
      return loading.promise;
    },
    async invalidate() {
      await deps.kv.set(VERSION_KEY, newId());
      reading = undefined;
    },
  };
}

const UNKNOWN = Symbol('unknown version');
/** A dead Redis makes a command wait through its reconnection attempts, seconds at a time. */
const VERSION_WAIT_MS = 200;

function readVersion(kv: KeyValueStore): Promise<string | null | typeof UNKNOWN> {
  return within(kv.get(VERSION_KEY).catch((): typeof UNKNOWN => UNKNOWN), VERSION_WAIT_MS, UNKNOWN);
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
  };
}
