/**
 * The key-value port over Redis (ioredis). Every key is namespaced with `prefix`.
 *
 * The Redis connection is owned by the caller and may be shared with other components (BullMQ, other
 * stores), so `close()` deliberately leaves it open: whoever created it quits it.
 */
import type { Redis } from 'ioredis';
import type { KeyValueStore } from '../../lib/ports/kv.ts';

/** INCR and the expiry of a new counter in one atomic step, so a crash can never leave a counter without TTL. */
const INCR_WITH_WINDOW = `
local value = redis.call('INCR', KEYS[1])
if value == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return value
`;

/** Sets the key only while it holds ARGV[2] (or is missing, when ARGV[1] is '1'): GET and SET as one step. */
const COMPARE_AND_SET = `
local current = redis.call('GET', KEYS[1])
if ARGV[1] == '1' then
  if current then return 0 end
elseif current ~= ARGV[2] then
  return 0
end
redis.call('SET', KEYS[1], ARGV[3], 'PX', ARGV[4])
return 1
`;

function ttlArgument(ttlMs: number): number {
  if (!Number.isFinite(ttlMs) || ttlMs <= 0) throw new RangeError(`invalid TTL: ${ttlMs}`);
  return Math.ceil(ttlMs);
}

class RedisKeyValueStore implements KeyValueStore {
  readonly kind = 'redis' as const;
  readonly #redis: Redis;
  readonly #prefix: string;

  constructor(redis: Redis, prefix: string) {
    this.#redis = redis;
    this.#prefix = prefix;
  }

  #key(key: string): string {
    return this.#prefix + key;
  }

  async get(key: string): Promise<string | null> {
    return this.#redis.get(this.#key(key));
  }

  async getMany(keys: readonly string[]): Promise<Array<string | null>> {
    if (keys.length === 0) return [];
    return this.#redis.mget(keys.map((key) => this.#key(key)));
  }

  async set(key: string, value: string, ttlMs?: number): Promise<void> {
    if (ttlMs === undefined) await this.#redis.set(this.#key(key), value);
    else await this.#redis.set(this.#key(key), value, 'PX', ttlArgument(ttlMs));
  }

  async setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean> {
    const reply = await this.#redis.set(this.#key(key), value, 'PX', ttlArgument(ttlMs), 'NX');
    return reply === 'OK';
  }

  async compareAndSet(key: string, expected: string | null, next: string, ttlMs: number): Promise<boolean> {
    const ttl = ttlArgument(ttlMs);
    const reply = await this.#redis.eval(
      COMPARE_AND_SET,
      1,
      this.#key(key),
      expected === null ? '1' : '0',
      expected ?? '',
      next,
      ttl,
    );
    return Number(reply) === 1;
  }

  async getDel(key: string): Promise<string | null> {
    return this.#redis.getdel(this.#key(key));
  }

  /** GETDEL: decided and kept in one reply. */
  async take(key: string): Promise<{ value: string | null; durable: Promise<void> }> {
    return { value: await this.getDel(key), durable: Promise.resolve() };
  }

  async del(key: string): Promise<void> {
    await this.#redis.del(this.#key(key));
  }

  async incr(key: string, ttlMs: number): Promise<number> {
    // Plain EVAL rather than EVALSHA: the script is tiny, and it cannot fail after a SCRIPT FLUSH.
    const reply = await this.#redis.eval(INCR_WITH_WINDOW, 1, this.#key(key), ttlArgument(ttlMs));
    return Number(reply);
  }

  async ttl(key: string): Promise<number> {
    return this.#redis.pttl(this.#key(key));
  }

  async ping(): Promise<void> {
    await this.#redis.ping();
  }

  /** Does not quit the connection: it belongs to the caller (see the module comment). */
  async close(): Promise<void> {}
}

export function createRedisKeyValueStore(redis: Redis, options: { prefix?: string } = {}): KeyValueStore {
  return new RedisKeyValueStore(redis, options.prefix ?? '');
}
