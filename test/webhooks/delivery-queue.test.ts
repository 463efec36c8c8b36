import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { expect } from 'chai';
import { createBullmqDeliveryQueue } from '../../adapters/bullmq/delivery-queue.ts';
import { createMemoryDeliveryQueue } from '../../adapters/memory/delivery-queue.ts';
import type { DeliveryJob, DeliveryQueue } from '../../lib/ports/queue.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const FAST = { errorRetryDelayMs: 50, maxErrorRetries: 2 };

let sequence = 0;
function job(overrides: Partial<DeliveryJob> = {}): DeliveryJob {
  sequence += 1;
  return {
    deliveryId: `delivery${Date.now().toString(36)}x${sequence}`,
    hookId: 'hook1',
    event: 'User.Created',
    payload: { event: 'User.Created', data: { id: `user${sequence}` } },
    createdAt: Date.now(),
    ...overrides,
  };
}

async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(10);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function gate(): { promise: Promise<void>; open: () => void } {
  let open = () => {};
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

interface Backend {
  name: string;
  setup?: () => Promise<void>;
  create: () => DeliveryQueue;
  cleanup: () => Promise<void>;
  teardown?: () => Promise<void>;
}

function bullmqBackend(): Backend & { connection: () => Redis; queueName: () => string } {
  let redis: Redis | undefined;
  let queueName = '';
  const connection = () => {
    if (!redis) throw new Error('not set up');
    return redis;
  };
  return {
    name: 'bullmq',
    connection,
    queueName: () => queueName,
    setup: async () => {
      redis = new Redis(REDIS_URL);
    },
    create: () => {
      queueName = `deliveries-test-${process.pid}-${Date.now().toString(36)}-${(sequence += 1)}`;
      return createBullmqDeliveryQueue({ connection: connection(), queueName, ...FAST });
    },
    cleanup: async () => {
      const admin = new Queue(queueName, { connection: connection() });
      await admin.obliterate({ force: true });
      await admin.close();
    },
    teardown: async () => {
      await redis?.quit();
    },
  };
}

const backends: Backend[] = [
  { name: 'memory', create: () => createMemoryDeliveryQueue(FAST), cleanup: async () => {} },
  bullmqBackend(),
];

for (const backend of backends) {
  describe(`delivery queue contract (${backend.name})`, () => {
    let queue: DeliveryQueue;

    before(async () => backend.setup?.());
    after(async () => backend.teardown?.());
    beforeEach(() => {
      queue = backend.create();
    });
    afterEach(async () => {
      await queue.close();
      await backend.cleanup();
    });

    it(`reports its kind`, () => expect(queue.kind).to.equal(backend.name));

    it('processes a job once, with attempt 1 and the job as enqueued', async () => {
      const calls: Array<[DeliveryJob, number]> = [];
      const delivery = job();
      await queue.enqueue([delivery]);
      expect(await queue.pendingCount()).to.equal(1);
      await queue.consume(
        async (received, attempt) => {
          calls.push([received, attempt]);
          return {};
        },
        { concurrency: 2 },
      );
      await waitFor(() => calls.length === 1);
      await waitFor(async () => (await queue.pendingCount()) === 0);
      await sleep(100);
      expect(calls).to.deep.equal([[delivery, 1]]);
    });

    it('schedules the attempts a processor asks for, numbering them 1, 2, 3', async () => {
      const attempts: number[] = [];
      await queue.consume(
        async (_job, attempt) => {
          attempts.push(attempt);
          return attempt < 3 ? { retryInMs: 50 } : {};
        },
        { concurrency: 1 },
      );
      await queue.enqueue([job()]);
      await waitFor(() => attempts.length === 3);
      await waitFor(async () => (await queue.pendingCount()) === 0);
      await sleep(100);
      expect(attempts).to.deep.equal([1, 2, 3]);
    });

    it('keeps a delayed retry pending, and known, until it runs', async () => {
      const attempts: number[] = [];
      await queue.consume(
        async (_job, attempt) => {
          attempts.push(attempt);
          return attempt === 1 ? { retryInMs: 400 } : {};
        },
        { concurrency: 1 },
      );
      const delivery = job();
      await queue.enqueue([delivery]);
      await waitFor(() => attempts.length === 1);
      await sleep(100);
      expect(await queue.pendingCount()).to.equal(1);
      // Still known while delayed, so re-enqueueing it does not start it over.
      await queue.enqueue([delivery]);
      expect(attempts).to.deep.equal([1]);
      await waitFor(() => attempts.length === 2);
      await sleep(100);
      expect(attempts).to.deep.equal([1, 2]);
      await waitFor(async () => (await queue.pendingCount()) === 0);
    });

    it('processes a duplicate deliveryId once', async () => {
      const delivery = job();
      await queue.enqueue([delivery, { ...delivery }]);
      await queue.enqueue([{ ...delivery, payload: { changed: true } }]);
      expect(await queue.pendingCount()).to.equal(1);
      const seen: DeliveryJob[] = [];
      await queue.consume(
        async (received) => {
          seen.push(received);
          return {};
        },
        { concurrency: 4 },
      );
      await waitFor(() => seen.length >= 1);
      await waitFor(async () => (await queue.pendingCount()) === 0);
      await sleep(100);
      expect(seen).to.deep.equal([delivery]);
    });

    it('runs at most `concurrency` attempts at once', async () => {
      const release = gate();
      let running = 0;
      let maxRunning = 0;
      let done = 0;
      await queue.consume(
        async () => {
          running += 1;
          maxRunning = Math.max(maxRunning, running);
          await release.promise;
          running -= 1;
          done += 1;
          return {};
        },
        { concurrency: 3 },
      );
      await queue.enqueue(Array.from({ length: 7 }, () => job()));
      await waitFor(() => running === 3);
      await sleep(150);
      expect(running).to.equal(3);
      release.open();
      await waitFor(() => done === 7);
      expect(maxRunning).to.equal(3);
    });

    it('retries a processor that throws, a bounded number of times', async () => {
      const attempts: string[] = [];
      await queue.consume(
        async (received, attempt) => {
          attempts.push(`${received.hookId}:${attempt}`);
          if (received.hookId === 'flaky' && attempt > 1) return {};
          throw new Error('unexpected');
        },
        { concurrency: 2 },
      );
      await queue.enqueue([job({ hookId: 'flaky' }), job({ hookId: 'broken' })]);
      // `broken` runs once plus FAST.maxErrorRetries retries, then is dropped.
      await waitFor(() => attempts.filter((a) => a.startsWith('broken')).length === 3);
      await waitFor(async () => (await queue.pendingCount()) === 0);
      await sleep(200);
      expect(attempts.filter((a) => a.startsWith('flaky'))).to.deep.equal(['flaky:1', 'flaky:2']);
      expect(attempts.filter((a) => a.startsWith('broken'))).to.deep.equal(['broken:1', 'broken:2', 'broken:3']);
    });

    it('waits for attempts in flight when closing', async () => {
      const release = gate();
      const events: string[] = [];
      await queue.consume(
        async () => {
          events.push('started');
          await release.promise;
          events.push('finished');
          return {};
        },
        { concurrency: 1 },
      );
      await queue.enqueue([job()]);
      await waitFor(() => events.length === 1);
      const closing = queue.close().then(() => events.push('closed'));
      await sleep(150);
      expect(events).to.deep.equal(['started']);
      release.open();
      await closing;
      expect(events).to.deep.equal(['started', 'finished', 'closed']);
    });

    it('accepts an empty batch', async () => {
      await queue.enqueue([]);
      expect(await queue.pendingCount()).to.equal(0);
    });
  });
}

describe('delivery queue (bullmq): a worker killed mid-attempt', () => {
  const backend = bullmqBackend();
  let child: ReturnType<typeof spawn> | undefined;
  let queue: DeliveryQueue | undefined;

  before(async () => backend.setup?.());
  after(async () => {
    child?.kill('SIGKILL');
    await queue?.close();
    await backend.cleanup();
    await backend.teardown?.();
  });

  it('has its job picked up again by another worker', async function () {
    this.timeout(20_000);
    const timing = { lockDurationMs: 1000, stalledIntervalMs: 1000 };
    const producer = backend.create();
    const queueName = backend.queueName();
    const delivery = job();
    await producer.enqueue([delivery]);
    await producer.close();

    const adapter = new URL('../../adapters/bullmq/delivery-queue.ts', import.meta.url).href;
    const script = `
      import { Redis } from 'ioredis';
      import { createBullmqDeliveryQueue } from ${JSON.stringify(adapter)};
      const queue = createBullmqDeliveryQueue({
        connection: new Redis(${JSON.stringify(REDIS_URL)}),
        queueName: ${JSON.stringify(queueName)},
        ...${JSON.stringify(timing)},
      });
      await queue.consume(async () => {
        process.stdout.write('started\\n');
        return new Promise(() => {});
      }, { concurrency: 1 });
    `;
    child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      cwd: new URL('../..', import.meta.url),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const stdout = child.stdout!;
    await Promise.race([
      once(stdout, 'data'),
      once(child, 'exit').then(() => {
        throw new Error('worker exited early');
      }),
    ]);
    child.kill('SIGKILL');
    await once(child, 'exit');

    const attempts: number[] = [];
    queue = createBullmqDeliveryQueue({ connection: backend.connection(), queueName, ...timing });
    await queue.consume(
      async (received, attempt) => {
        expect(received).to.deep.equal(delivery);
        attempts.push(attempt);
        return {};
      },
      { concurrency: 1 },
    );
    await waitFor(() => attempts.length === 1, 15_000);
    // The killed attempt keeps its number: the recovered run is attempt 2.
    expect(attempts).to.deep.equal([2]);
  });
});
