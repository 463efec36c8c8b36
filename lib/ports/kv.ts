/**
 * The key-value port: subject tokens, lockout and rate-limit counters, experience records, caches. Redis when
 * shared (`adapters/redis`), the SQLite file on a single node (`adapters/sqlite`), a process-local map in memory
 * mode (`adapters/memory`). Values are strings; every TTL is in milliseconds.
 */
export interface KeyValueStore {
  readonly kind: 'memory' | 'sqlite' | 'redis';
  get(key: string): Promise<string | null>;
  /** The values of several keys in one call (one round trip), in the order asked; null for each missing key. */
  getMany(keys: readonly string[]): Promise<Array<string | null>>;
  /** Sets the value, with an expiry when `ttlMs` is given. */
  set(key: string, value: string, ttlMs?: number): Promise<void>;
  /** Sets only when the key does not exist; true when it was set. */
  setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean>;
  /**
   * Sets `next` (expiring after `ttlMs`) only while the stored value is `expected`, or while the key is missing when
   * `expected` is null, in one atomic step: of concurrent callers expecting the same value at most one succeeds.
   * True when it was set.
   */
  compareAndSet(key: string, expected: string | null, next: string, ttlMs: number): Promise<boolean>;
  /** Atomically returns and deletes the value: of N concurrent callers at most one gets it. */
  getDel(key: string): Promise<string | null>;
  /**
   * `getDel`, answered once it is decided rather than once it is durable: `value` is what this caller took (null:
   * nothing, or another caller took it), `durable` settles once the removal is kept as durably as the store keeps
   * anything (it rejects, the value put back, when it cannot be). On the SQLite store the removal is written into the
   * commit being gathered, so the writes made right after it (a transaction's) share that commit and its sync.
   */
  take(key: string): Promise<{ value: string | null; durable: Promise<void> }>;
  del(key: string): Promise<void>;
  /** Increments a counter; the first increment (value 1) starts its expiry window of `ttlMs`. */
  incr(key: string, ttlMs: number): Promise<number>;
  /** Remaining time to live in ms; -1 without expiry, -2 when the key does not exist. */
  ttl(key: string): Promise<number>;
  ping(): Promise<void>;
  close(): Promise<void>;
}
