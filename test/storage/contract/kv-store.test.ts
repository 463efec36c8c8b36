/**
 * One contract for every KeyValueStore backend: the in-memory store and a real Redis
 * (REDIS_URL or 127.0.0.1:6379), each Redis run under its own key prefix, removed afterwards.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { createMemoryKeyValueStore } from '../../../adapters/memory/kv.ts';
import { createRedisKeyValueStore } from '../../../adapters/redis/kv.ts';
import type { KeyValueStore } from '../../../lib/ports/kv.ts';
import { installFakeClock, type FakeClock } from '../../support/clock.ts';
import { eventually } from '../../support/wait.ts';

interface Backend {
  readonly kind: KeyValueStore['kind'];
  /** Whether expiries follow this process's `Date`, so that a fake clock moves them. */
  readonly localClock: boolean;
  open(): Promise<KeyValueStore>;
  tearDown(): Promise<void>;
}

function connectRedis(): Redis {
  return new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { lazyConnect: true, maxRetriesPerRequest: 1 });
}

async function deleteByPrefix(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
    if (keys.length > 0) await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
}

function memoryBackend(): Backend {
  return {
    kind: 'memory',
    localClock: true,
    async open() {
      return createMemoryKeyValueStore();
    },
    async tearDown() {},
  };
}

function redisBackend(): Backend {
  const redis = connectRedis();
  const runPrefix = `test:kv-contract:${randomUUID()}:`;
  let stores = 0;
  return {
    kind: 'redis',
    localClock: false,
    async open() {
      if (redis.status === 'wait') await redis.connect();
      // Each store gets its own namespace, so stores opened here are independent like memory ones.
      return createRedisKeyValueStore(redis, { prefix: `${runPrefix}${++stores}:` });
    },
    async tearDown() {
      if (redis.status !== 'ready') return;
      await deleteByPrefix(redis, runPrefix);
      await redis.quit();
    },
  };
}

async function rejects(promise: Promise<unknown>): Promise<void> {
  try {
    await promise;
  } catch (error) {
    expect(error).to.be.instanceOf(Error);
    return;
  }
  throw new Error('expected the operation to fail');
}

function keyValueContract(backend: Backend): void {
  describe(`KeyValueStore contract: ${backend.kind}`, () => {
    let kv: KeyValueStore;
    let clock: FakeClock | undefined;
    let sequence = 0;
    const key = () => `k${++sequence}`;
    const gone = (k: string) => async () => (await kv.ttl(k)) === -2;

    before(async () => {
      if (backend.localClock) clock = installFakeClock();
      kv = await backend.open();
    });

    after(async () => {
      await kv?.close();
      await backend.tearDown();
      clock?.uninstall();
    });

    /**
     * Lets `ms` pass for the store's expiries, after which `reached` holds. The fake clock stops a millisecond
     * short first, where `reached` must not hold yet; Redis expires on the server's clock, so it is polled.
     */
    async function passes(ms: number, reached: () => Promise<boolean>): Promise<void> {
      if (clock) {
        clock.advance(ms - 1);
        expect(await reached(), `${ms - 1} ms later`).to.equal(false);
        clock.advance(1);
      } else {
        await eventually(reached, { timeoutMs: ms + 5000, intervalMs: 10, what: `the state ${ms} ms later` });
      }
      expect(await reached(), `${ms} ms later`).to.equal(true);
    }

    it('reports its kind and answers ping', async () => {
      expect(kv.kind).to.equal(backend.kind);
      await kv.ping();
    });

    it('gets, sets, overwrites and deletes values', async () => {
      const k = key();
      expect(await kv.get(k)).to.equal(null);
      await kv.set(k, 'one');
      expect(await kv.get(k)).to.equal('one');
      await kv.set(k, 'two');
      expect(await kv.get(k)).to.equal('two');
      await kv.del(k);
      expect(await kv.get(k)).to.equal(null);
      await kv.del(k);
    });

    it('gets several values in one call, in the order asked, null for missing and expired keys', async () => {
      const [a, b, missing, short] = [key(), key(), key(), key()];
      await kv.set(a, 'first');
      await kv.set(b, 'second', 10_000);
      await kv.set(short, 'brief', 50);
      expect(await kv.getMany([b, missing, a, short])).to.deep.equal(['second', null, 'first', 'brief']);
      expect(await kv.getMany([])).to.deep.equal([]);
      await passes(50, async () => (await kv.getMany([short, a]))[0] === null);
      expect(await kv.getMany([short, a, a])).to.deep.equal([null, 'first', 'first']);
    });

    it('expires values after their TTL', async () => {
      const k = key();
      await kv.set(k, 'short', 50);
      expect(await kv.get(k)).to.equal('short');
      await passes(50, async () => (await kv.get(k)) === null);
      expect(await kv.ttl(k)).to.equal(-2);
    });

    it('reports ttl: -2 when missing, -1 without expiry, else the remaining milliseconds', async () => {
      const k = key();
      expect(await kv.ttl(k)).to.equal(-2);
      await kv.set(k, 'v');
      expect(await kv.ttl(k)).to.equal(-1);
      await kv.set(k, 'v', 10_000);
      const remaining = await kv.ttl(k);
      expect(remaining).to.be.within(9_000, 10_000);
      await kv.set(k, 'v');
      expect(await kv.ttl(k), 'a plain set clears the expiry').to.equal(-1);
    });

    it('rejects a TTL that is not positive', async () => {
      await rejects(kv.set(key(), 'v', 0));
      await rejects(kv.setIfAbsent(key(), 'v', -5));
      await rejects(kv.incr(key(), 0));
    });

    it('setIfAbsent sets only a missing (or expired) key', async () => {
      const k = key();
      expect(await kv.setIfAbsent(k, 'first', 50)).to.equal(true);
      expect(await kv.setIfAbsent(k, 'second', 50)).to.equal(false);
      expect(await kv.get(k)).to.equal('first');
      expect(await kv.ttl(k)).to.be.within(1, 50);
      await passes(50, gone(k));
      expect(await kv.setIfAbsent(k, 'third', 1_000)).to.equal(true);
      expect(await kv.get(k)).to.equal('third');
    });

    it('getDel returns the value once and removes the key', async () => {
      const k = key();
      expect(await kv.getDel(k)).to.equal(null);
      await kv.set(k, 'token', 1_000);
      expect(await kv.getDel(k)).to.equal('token');
      expect(await kv.getDel(k)).to.equal(null);
      expect(await kv.get(k)).to.equal(null);
      await kv.set(k, 'expiring', 30);
      await passes(30, gone(k));
      expect(await kv.getDel(k)).to.equal(null);
    });

    it('gives a value to exactly one of 200 concurrent getDel calls', async () => {
      const k = key();
      await kv.set(k, 'once', 10_000);
      const results = await Promise.all(Array.from({ length: 200 }, () => kv.getDel(k)));
      expect(results.filter((r) => r !== null)).to.deep.equal(['once']);
    });

    it('take answers the value to exactly one of 200 concurrent callers, and its removal is durable once `durable` settles', async () => {
      const k = key();
      expect((await kv.take(k)).value).to.equal(null);
      await kv.set(k, 'once', 10_000);
      const results = await Promise.all(Array.from({ length: 200 }, () => kv.take(k)));
      expect(results.map((result) => result.value).filter((value) => value !== null)).to.deep.equal(['once']);
      await Promise.all(results.map((result) => result.durable));
      expect(await kv.get(k)).to.equal(null);
    });

    it('gives a key to exactly one of 50 concurrent setIfAbsent calls', async () => {
      const k = key();
      const results = await Promise.all(Array.from({ length: 50 }, (_, i) => kv.setIfAbsent(k, `v${i}`, 10_000)));
      expect(results.filter(Boolean)).to.have.length(1);
    });

    it('compareAndSet sets only while the value is the one expected, or the key missing when null is expected', async () => {
      const k = key();
      expect(await kv.compareAndSet(k, 'anything', 'x', 1_000)).to.equal(false);
      expect(await kv.get(k)).to.equal(null);
      expect(await kv.compareAndSet(k, null, 'first', 1_000)).to.equal(true);
      expect(await kv.compareAndSet(k, null, 'again', 1_000)).to.equal(false);
      expect(await kv.compareAndSet(k, 'stale', 'second', 1_000)).to.equal(false);
      expect(await kv.compareAndSet(k, 'first', 'second', 60)).to.equal(true);
      expect(await kv.get(k)).to.equal('second');
      expect(await kv.ttl(k)).to.be.within(1, 60);
      await passes(60, gone(k));
      expect(await kv.compareAndSet(k, 'second', 'third', 1_000), 'an expired value is no longer there').to.equal(
        false,
      );
      await rejects(kv.compareAndSet(k, null, 'v', 0));
    });

    it('lets exactly one of 100 concurrent compareAndSet calls expecting one value win', async () => {
      const k = key();
      await kv.set(k, 'v0', 10_000);
      const results = await Promise.all(
        Array.from({ length: 100 }, (_, i) => kv.compareAndSet(k, 'v0', `v${i + 1}`, 10_000)),
      );
      expect(results.filter(Boolean)).to.have.length(1);
      expect(await kv.get(k)).to.equal(`v${results.indexOf(true) + 1}`);
    });

    it('incr counts within a window started by the first increment', async () => {
      const k = key();
      expect(await kv.incr(k, 300)).to.equal(1);
      expect(await kv.ttl(k)).to.be.within(1, 300);
      await passes(100, async () => (await kv.ttl(k)) <= 200);
      expect(await kv.incr(k, 300)).to.equal(2);
      expect(await kv.ttl(k), 'later increments keep the window').to.be.at.most(200);
      expect(await kv.get(k)).to.equal('2');
      await passes(200, gone(k));
      expect(await kv.get(k)).to.equal(null);
      expect(await kv.incr(k, 300)).to.equal(1);
    });

    it('incr continues an existing counter without giving it an expiry', async () => {
      const k = key();
      await kv.set(k, '41');
      expect(await kv.incr(k, 1_000)).to.equal(42);
      expect(await kv.ttl(k)).to.equal(-1);
      await kv.set(k, 'not a number');
      await rejects(kv.incr(k, 1_000));
    });

    it('incr is atomic under concurrency', async () => {
      const k = key();
      const results = await Promise.all(Array.from({ length: 100 }, () => kv.incr(k, 10_000)));
      expect([...results].sort((a, b) => a - b)).to.deep.equal(Array.from({ length: 100 }, (_, i) => i + 1));
      expect(await kv.ttl(k)).to.be.within(9_000, 10_000);
    });

    it('keeps two stores independent', async () => {
      const other = await backend.open();
      try {
        await other.set('shared', 'other');
        expect(await kv.get('shared')).to.equal(null);
        expect(await other.get('shared')).to.equal('other');
      } finally {
        await other.close();
      }
    });
  });
}

keyValueContract(memoryBackend());
keyValueContract(redisBackend());

describe('Redis key-value store specifics', () => {
  const redis = connectRedis();
  const prefix = `test:kv-specific:${randomUUID()}:`;

  before(async () => {
    await redis.connect();
  });

  after(async () => {
    await deleteByPrefix(redis, prefix);
    await redis.quit();
  });

  it('stores every key under its prefix', async () => {
    const kv = createRedisKeyValueStore(redis, { prefix });
    await kv.set('a', '1');
    await kv.incr('b', 1_000);
    await kv.setIfAbsent('c', '3', 1_000);
    expect((await redis.keys(`${prefix}*`)).sort()).to.deep.equal([`${prefix}a`, `${prefix}b`, `${prefix}c`]);
    expect(await redis.get(`${prefix}a`)).to.equal('1');
  });

  it('leaves the shared connection open on close', async () => {
    const kv = createRedisKeyValueStore(redis, { prefix });
    await kv.close();
    expect(redis.status).to.equal('ready');
    await kv.ping();
  });
});
