/**
 * In-process implementation of the key-value port. Each operation is synchronous inside its promise, so
 * `getDel`, `incr` and `compareAndSet` are atomic by construction. Expired keys are invisible and dropped lazily.
 * With a journal (the SQLite store), every change is also written through, and answered once it is durable; a change
 * that cannot be made durable is undone in memory and its operation rejects.
 */
import type { KeyValueStore } from '../../lib/ports/kv.ts';

export interface KeyValueEntry {
  value: string;
  /** ms since epoch; null for no expiry. */
  expiresAt: number | null;
}

/** Where a durable key-value store writes its changes. */
export interface KeyValueJournal {
  /** `key` now holds `entry` (null: removed). Resolves once durable; otherwise calls `undo` and rejects. */
  record(key: string, entry: KeyValueEntry | null, undo: () => void): Promise<void>;
}

export interface MemoryKeyValueOptions {
  kind?: KeyValueStore['kind'];
  journal?: KeyValueJournal;
  /** Entries read back from durable storage. */
  entries?: Iterable<[string, KeyValueEntry]>;
  close?: () => Promise<void>;
}

/** How often (at most) a write scans the whole map for keys that expired without being read again. */
const SWEEP_INTERVAL_MS = 1000;

function expiryFrom(ttlMs: number | undefined): number | null {
  if (ttlMs === undefined) return null;
  if (!Number.isFinite(ttlMs) || ttlMs <= 0) throw new RangeError(`invalid TTL: ${ttlMs}`);
  return Date.now() + Math.ceil(ttlMs);
}

class MemoryKeyValueStore implements KeyValueStore {
  readonly kind: KeyValueStore['kind'];
  readonly #entries: Map<string, KeyValueEntry>;
  readonly #journal: KeyValueJournal | undefined;
  readonly #close: (() => Promise<void>) | undefined;
  #nextSweep = 0;

  constructor(options: MemoryKeyValueOptions) {
    this.kind = options.kind ?? 'memory';
    this.#entries = new Map(options.entries ?? []);
    this.#journal = options.journal;
    this.#close = options.close;
  }

  #live(key: string): KeyValueEntry | undefined {
    const entry = this.#entries.get(key);
    if (entry && entry.expiresAt !== null && entry.expiresAt <= Date.now()) {
      // Not journalled: an expired key is invisible wherever it is kept, and the durable store sweeps its own.
      this.#entries.delete(key);
      return undefined;
    }
    return entry;
  }

  /** Bounds memory held by keys that expire without ever being touched again. */
  #sweep(): void {
    const now = Date.now();
    if (now < this.#nextSweep) return;
    this.#nextSweep = now + SWEEP_INTERVAL_MS;
    for (const [key, entry] of this.#entries) {
      if (entry.expiresAt !== null && entry.expiresAt <= now) this.#entries.delete(key);
    }
  }

  /** Stores (or, with null, removes) the entry, then waits for the journal, undoing the change if it fails. */
  #change(key: string, entry: KeyValueEntry | null): Promise<void> {
    const previous = this.#entries.get(key);
    if (entry) this.#entries.set(key, entry);
    else this.#entries.delete(key);
    if (!this.#journal) return Promise.resolve();
    return this.#journal.record(key, entry, () => {
      // Only while nothing changed the key since: a later change was undone first, or stands on its own.
      if ((this.#entries.get(key) ?? null) !== entry) return;
      if (previous) this.#entries.set(key, previous);
      else this.#entries.delete(key);
    });
  }

  async get(key: string): Promise<string | null> {
    return this.#live(key)?.value ?? null;
  }

  async getMany(keys: readonly string[]): Promise<Array<string | null>> {
    return keys.map((key) => this.#live(key)?.value ?? null);
  }

  async set(key: string, value: string, ttlMs?: number): Promise<void> {
    const expiresAt = expiryFrom(ttlMs);
    this.#sweep();
    await this.#change(key, { value, expiresAt });
  }

  async setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean> {
    const expiresAt = expiryFrom(ttlMs);
    this.#sweep();
    if (this.#live(key)) return false;
    await this.#change(key, { value, expiresAt });
    return true;
  }

  async compareAndSet(key: string, expected: string | null, next: string, ttlMs: number): Promise<boolean> {
    const expiresAt = expiryFrom(ttlMs);
    this.#sweep();
    if ((this.#live(key)?.value ?? null) !== expected) return false;
    await this.#change(key, { value: next, expiresAt });
    return true;
  }

  async getDel(key: string): Promise<string | null> {
    const { value, durable } = await this.take(key);
    await durable;
    return value;
  }

  async take(key: string): Promise<{ value: string | null; durable: Promise<void> }> {
    const entry = this.#live(key);
    if (!entry) return { value: null, durable: Promise.resolve() };
    return { value: entry.value, durable: this.#change(key, null) };
  }

  async del(key: string): Promise<void> {
    if (!this.#entries.has(key)) return;
    await this.#change(key, null);
  }

  async incr(key: string, ttlMs: number): Promise<number> {
    const expiresAt = expiryFrom(ttlMs);
    this.#sweep();
    const entry = this.#live(key);
    if (!entry) {
      await this.#change(key, { value: '1', expiresAt });
      return 1;
    }
    // Same rule as Redis INCR: the stored value must be a base-10 integer.
    if (!/^-?\d+$/.test(entry.value)) throw new Error('value is not an integer');
    const next = Number(entry.value) + 1;
    if (!Number.isSafeInteger(next)) throw new Error('increment would overflow');
    // Matches the Redis adapter, which starts the window whenever INCR returns 1.
    await this.#change(key, { value: String(next), expiresAt: next === 1 ? expiresAt : entry.expiresAt });
    return next;
  }

  async ttl(key: string): Promise<number> {
    const entry = this.#live(key);
    if (!entry) return -2;
    if (entry.expiresAt === null) return -1;
    return entry.expiresAt - Date.now();
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {
    this.#entries.clear();
    await this.#close?.();
  }
}

export function createMemoryKeyValueStore(options: MemoryKeyValueOptions = {}): KeyValueStore {
  return new MemoryKeyValueStore(options);
}
