/**
 * In-process implementation of the key-value port. Each operation is synchronous inside its promise, so
 * `getDel` and `incr` are atomic by construction. Expired keys are invisible and dropped lazily.
 */
import type { KeyValueStore } from '../../lib/ports/kv.ts';

interface Entry {
  value: string;
  /** ms since epoch; null for no expiry. */
  expiresAt: number | null;
}

/** How often (at most) a write scans the whole map for keys that expired without being read again. */
const SWEEP_INTERVAL_MS = 1000;

function expiryFrom(ttlMs: number | undefined): number | null {
  if (ttlMs === undefined) return null;
  if (!Number.isFinite(ttlMs) || ttlMs <= 0) throw new RangeError(`invalid TTL: ${ttlMs}`);
  return Date.now() + Math.ceil(ttlMs);
}

class MemoryKeyValueStore implements KeyValueStore {
  readonly kind = 'memory' as const;
  readonly #entries = new Map<string, Entry>();
  #nextSweep = 0;

  #live(key: string): Entry | undefined {
    const entry = this.#entries.get(key);
    if (entry && entry.expiresAt !== null && entry.expiresAt <= Date.now()) {
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

  async get(key: string): Promise<string | null> {
    return this.#live(key)?.value ?? null;
  }

  async getMany(keys: readonly string[]): Promise<Array<string | null>> {
    return keys.map((key) => this.#live(key)?.value ?? null);
  }

  async set(key: string, value: string, ttlMs?: number): Promise<void> {
    const expiresAt = expiryFrom(ttlMs);
    this.#sweep();
    this.#entries.set(key, { value, expiresAt });
  }

  async setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean> {
    const expiresAt = expiryFrom(ttlMs);
    this.#sweep();
    if (this.#live(key)) return false;
    this.#entries.set(key, { value, expiresAt });
    return true;
  }

  async compareAndSet(key: string, expected: string | null, next: string, ttlMs: number): Promise<boolean> {
    const expiresAt = expiryFrom(ttlMs);
    this.#sweep();
    if ((this.#live(key)?.value ?? null) !== expected) return false;
    this.#entries.set(key, { value: next, expiresAt });
    return true;
  }

  async getDel(key: string): Promise<string | null> {
    const entry = this.#live(key);
    if (!entry) return null;
    this.#entries.delete(key);
    return entry.value;
  }

  async del(key: string): Promise<void> {
    this.#entries.delete(key);
  }

  async incr(key: string, ttlMs: number): Promise<number> {
    const expiresAt = expiryFrom(ttlMs);
    this.#sweep();
    const entry = this.#live(key);
    if (!entry) {
      this.#entries.set(key, { value: '1', expiresAt });
      return 1;
    }
    // Same rule as Redis INCR: the stored value must be a base-10 integer.
    if (!/^-?\d+$/.test(entry.value)) throw new Error('value is not an integer');
    const next = Number(entry.value) + 1;
    if (!Number.isSafeInteger(next)) throw new Error('increment would overflow');
    entry.value = String(next);
    // Matches the Redis adapter, which starts the window whenever INCR returns 1.
    if (next === 1) entry.expiresAt = expiresAt;
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
  }
}

export function createMemoryKeyValueStore(): KeyValueStore {
  return new MemoryKeyValueStore();
}
