import { expect } from 'chai';
import { Redis } from 'ioredis';
import { createMemoryKeyValueStore } from '../../adapters/memory/kv.ts';
import { createRedisKeyValueStore } from '../../adapters/redis/kv.ts';
import type { KeyValueStore } from '../../lib/ports/kv.ts';
import {
  createEndpointGuard,
  type Admission,
  type EndpointLimits,
  type EndpointPass,
} from '../../lib/webhooks/endpoint-guard.ts';
import { eventually } from '../support/wait.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const LIMITS: EndpointLimits = { concurrency: 2, breakerFailures: 3, breakerOpenMs: 200, timeoutMs: 1000 };
const DEAD = 'http://127.0.0.1:9/dead';

function passOf(admission: Admission): EndpointPass {
  if (!('pass' in admission)) throw new Error(`deferred by ${admission.deferInMs} ms`);
  return admission.pass;
}
const deferred = (admission: Admission) => ('deferInMs' in admission ? admission.deferInMs : undefined);

const backends: { name: string; kv: () => Promise<{ kv: KeyValueStore; close: () => Promise<void> }> }[] = [
  { name: 'memory', kv: async () => ({ kv: createMemoryKeyValueStore(), close: async () => {} }) },
  {
    name: 'redis',
    kv: async () => {
      const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
      return { kv: createRedisKeyValueStore(redis, { prefix: 'test:' }), close: async () => void (await redis.quit()) };
    },
  },
];

for (const backend of backends) {
  describe(`webhook endpoint guard (${backend.name} key-value store)`, () => {
    let kv: KeyValueStore;
    let closeKv: () => Promise<void>;
    let namespace: string;
    const guard = (limits: Partial<EndpointLimits> = {}, ns = namespace) =>
      createEndpointGuard({ kv, namespace: ns, limits: { ...LIMITS, ...limits } });

    beforeEach(async () => {
      ({ kv, close: closeKv } = await backend.kv());
      namespace = `guard-${process.pid}-${Math.random().toString(36).slice(2)}`;
    });
    afterEach(() => closeKv());

    it('lets `concurrency` attempts run per origin and defers the next, without touching other origins', async () => {
      const endpoints = guard();
      const first = passOf(await endpoints.admit(`${DEAD}/a`));
      passOf(await endpoints.admit(`${DEAD}/b`));
      const third = await endpoints.admit(`${DEAD}/c`);
      expect(deferred(third)).to.be.within(50, 1000 * 1.5);
      passOf(await endpoints.admit('http://127.0.0.1:10/healthy'));
      await first.done('answering', 5);
      passOf(await endpoints.admit(`${DEAD}/d`));
    });

    it('defers a busy origin for about as long as its attempts take', async () => {
      const endpoints = guard({ concurrency: 1 });
      await passOf(await endpoints.admit(DEAD)).done('failing', 900);
      const slow = passOf(await endpoints.admit(DEAD));
      expect(deferred(await endpoints.admit(DEAD))).to.be.within(900, 1350);
      await slow.done('answering', 900);
    });

    it('opens after consecutive failures, shared by every process on the same namespace, and not beyond it', async () => {
      const one = guard({ concurrency: 10 });
      const other = guard({ concurrency: 10 });
      const passes = await Promise.all([one.admit(DEAD), other.admit(DEAD), one.admit(DEAD)]);
      for (const admission of passes) await passOf(admission).done('failing', 1000);
      expect(deferred(await other.admit(DEAD))).to.be.within(100, 300);
      expect(deferred(await one.admit(DEAD))).to.be.within(100, 300);
      passOf(await guard({}, `${namespace}-elsewhere`).admit(DEAD));
      passOf(await one.admit('http://127.0.0.1:10/healthy'));
    });

    it('does not count an answering endpoint or an untried attempt as a failure', async () => {
      const endpoints = guard({ concurrency: 10 });
      for (const health of ['failing', 'failing', 'answering', 'failing', 'failing', 'untried', 'untried'] as const) {
        await passOf(await endpoints.admit(DEAD)).done(health, 10);
      }
      passOf(await endpoints.admit(DEAD));
    });

    it('then lets one probe through at a time: a failed probe reopens it for longer, an answer closes it', async () => {
      const endpoints = guard({ concurrency: 10 });
      for (let i = 0; i < 3; i += 1) await passOf(await endpoints.admit(DEAD)).done('failing', 10);
      const probe = await eventually(
        async () => {
          const admission = await endpoints.admit(DEAD);
          return 'pass' in admission ? admission.pass : undefined;
        },
        { timeoutMs: 2000, what: 'the circuit to half-open' },
      );
      expect(deferred(await endpoints.admit(DEAD)), 'a second probe').to.be.within(1000, 1500);
      await probe.done('failing', 10);
      expect(deferred(await endpoints.admit(DEAD)), 'reopened for twice as long').to.be.within(300, 600);

      const second = await eventually(
        async () => {
          const admission = await endpoints.admit(DEAD);
          return 'pass' in admission ? admission.pass : undefined;
        },
        { timeoutMs: 2000, what: 'the circuit to half-open again' },
      );
      await second.done('answering', 10);
      const after = await Promise.all([endpoints.admit(DEAD), endpoints.admit(DEAD)]);
      for (const admission of after) await passOf(admission).done('answering', 10);
    });

    it('reads the circuit once for attempts to one origin admitted together, and afresh after a failure', async () => {
      const reads: string[] = [];
      const counted: KeyValueStore = {
        kind: kv.kind,
        get: (key) => kv.get(key),
        getMany: (keys) => kv.getMany(keys),
        set: (key, value, ttlMs) => kv.set(key, value, ttlMs),
        setIfAbsent: (key, value, ttlMs) => kv.setIfAbsent(key, value, ttlMs),
        compareAndSet: (key, expected, next, ttlMs) => kv.compareAndSet(key, expected, next, ttlMs),
        getDel: (key) => kv.getDel(key),
        take: (key) => kv.take(key),
        del: (key) => kv.del(key),
        incr: (key, ttlMs) => kv.incr(key, ttlMs),
        ttl: (key) => {
          reads.push(key);
          return kv.ttl(key);
        },
        ping: () => kv.ping(),
        close: async () => {},
      };
      const endpoints = createEndpointGuard({
        kv: counted,
        namespace,
        limits: { ...LIMITS, concurrency: 4, breakerFailures: 2 },
      });
      const together = await Promise.all([1, 2, 3].map(() => endpoints.admit(DEAD)));
      expect(reads).to.have.length(1);
      await Promise.all(together.map((admission) => passOf(admission).done('failing', 10)));
      expect(deferred(await endpoints.admit(DEAD)), 'the failures recorded before it').to.be.within(400, 900);
      expect(reads).to.have.length(2);
    });

    it('delivers when the key-value store fails (the breaker is advisory)', async () => {
      const down = () => Promise.reject(new Error('down'));
      const broken: KeyValueStore = {
        kind: kv.kind,
        get: down,
        getMany: down,
        set: down,
        setIfAbsent: down,
        compareAndSet: down,
        getDel: down,
        take: down,
        del: down,
        incr: down,
        ttl: down,
        ping: down,
        close: async () => {},
      };
      const endpoints = createEndpointGuard({ kv: broken, namespace, limits: LIMITS });
      for (let i = 0; i < 5; i += 1) await passOf(await endpoints.admit(DEAD)).done('failing', 10);
    });
  });
}
