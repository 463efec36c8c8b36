import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { expect } from 'chai';
import { createBullmqDeliveryQueue } from '../../adapters/bullmq/delivery-queue.ts';
import { createMemoryDeliveryQueue } from '../../adapters/memory/delivery-queue.ts';
import type { DeliveryJob, DeliveryQueue } from '../../lib/ports/queue.ts';
import { eventually } from '../support/wait.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const FAST = { errorRetryDelayMs: 50, maxErrorRetries: 2 };

let sequence = 0;
function job(overrides: Partial<DeliveryJob> = {}): DeliveryJob {
  sequence += 1;
  return {
    deliveryId: `delivery${Date.now().toString(36)}x${sequence}`,
    hookId: 'hook1',
    event: 'User.Created',
    payload: JSON.stringify({ event: 'User.Created', data: { id: `user${sequence}` } }),
    createdAt: Date.now(),
    ...overrides,
  };
}

/** The queue holds no job any more, waiting, delayed or running: nothing it was given can still run. */
async function drained(queue: DeliveryQueue): Promise<void> {
  await eventually(async () => (await queue.pendingCount()) === 0, { what: 'an empty queue' });
}

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
  /** Every queue created since the last cleanup, so a test may create more than one. */
  const created: string[] = [];
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
      queueName = `deliveries-test-${process.pid}-${Date.now().toString(36)}-${++sequence}`;
      created.push(queueName);
      return createBullmqDeliveryQueue({ connection: connection(), queueName, ...FAST });
    },
    cleanup: async () => {
      for (const name of created.splice(0)) {
        const admin = new Queue(name, { connection: connection() });
        await admin.obliterate({ force: true });
        await admin.close();
      }
    },
    teardown: async () => {
      await redis?.quit();
    },
  };
}

/** A queue of `backend` for each test, closed and cleaned up after it. */
function freshQueueEachTest(backend: Backend): { readonly queue: DeliveryQueue } {
  let queue: DeliveryQueue | undefined;
  before(async () => backend.setup?.());
  after(async () => backend.teardown?.());
  beforeEach(() => {
    queue = backend.create();
  });
  afterEach(async () => {
    await queue?.close();
    await backend.cleanup();
  });
  return {
    get queue() {
      if (!queue) throw new Error('no queue outside a test');
      return queue;
    },
  };
}

const backends: Backend[] = [
  { name: 'memory', create: () => createMemoryDeliveryQueue(FAST), cleanup: async () => {} },
  bullmqBackend(),
];

for (const backend of backends) {
  describe(`delivery queue contract (${backend.name})`, () => {
    const each = freshQueueEachTest(backend);

    it(`reports its kind`, () => expect(each.queue.kind).to.equal(backend.name));

    it('processes a job once, with attempt 1 and the job as enqueued', async () => {
      const calls: Array<[DeliveryJob, number]> = [];
      const delivery = job();
      await each.queue.enqueue([delivery]);
      expect(await each.queue.pendingCount()).to.equal(1);
      await each.queue.consume(
        async (received, attempt) => {
          calls.push([received, attempt]);
          return {};
        },
        { concurrency: 2 },
      );
      await drained(each.queue);
      expect(calls).to.deep.equal([[delivery, 1]]);
    });

    it('schedules the attempts a processor asks for, numbering them 1, 2, 3', async () => {
      const attempts: number[] = [];
      await each.queue.consume(
        async (_job, attempt) => {
          attempts.push(attempt);
          return attempt < 3 ? { retryInMs: 50 } : {};
        },
        { concurrency: 1 },
      );
      await each.queue.enqueue([job()]);
      await drained(each.queue);
      expect(attempts).to.deep.equal([1, 2, 3]);
    });

    it('keeps a delayed retry pending, and known, until it runs', async () => {
      const attempts: Array<[string, number]> = [];
      await each.queue.consume(
        async (received, attempt) => {
          attempts.push([received.hookId, attempt]);
          return received.hookId === 'delayed' && attempt === 1 ? { retryInMs: 400 } : {};
        },
        { concurrency: 1 },
      );
      const delivery = job({ hookId: 'delayed' });
      await each.queue.enqueue([delivery]);
      // With one attempt at a time, a job enqueued next runs only once the first attempt has returned.
      await each.queue.enqueue([job({ hookId: 'next' })]);
      await eventually(() => attempts.some(([hookId]) => hookId === 'next'));
      expect(attempts).to.deep.equal([
        ['delayed', 1],
        ['next', 1],
      ]);
      await eventually(async () => (await each.queue.pendingCount()) === 1, { what: 'only the delayed retry left' });
      // Still known while delayed, so re-enqueueing it does not start it over.
      await each.queue.enqueue([delivery]);
      await drained(each.queue);
      expect(attempts).to.deep.equal([
        ['delayed', 1],
        ['next', 1],
        ['delayed', 2],
      ]);
    });

    it('processes a duplicate deliveryId once', async () => {
      const delivery = job();
      await each.queue.enqueue([delivery, { ...delivery }]);
      await each.queue.enqueue([{ ...delivery, payload: '{"changed":true}' }]);
      expect(await each.queue.pendingCount()).to.equal(1);
      const seen: DeliveryJob[] = [];
      await each.queue.consume(
        async (received) => {
          seen.push(received);
          return {};
        },
        { concurrency: 4 },
      );
      await drained(each.queue);
      expect(seen).to.deep.equal([delivery]);
    });

    it('runs at most `concurrency` attempts at once', async () => {
      const held: Array<() => void> = [];
      let started = 0;
      let running = 0;
      let maxRunning = 0;
      let done = 0;
      await each.queue.consume(
        async () => {
          started += 1;
          running += 1;
          maxRunning = Math.max(maxRunning, running);
          await new Promise<void>((resolve) => held.push(resolve));
          running -= 1;
          done += 1;
          return {};
        },
        { concurrency: 3 },
      );
      await each.queue.enqueue(Array.from({ length: 7 }, () => job()));
      await eventually(() => started >= 3);
      // Freeing one slot lets exactly one more start: seeing it start shows the queue has had its turn.
      held.shift()!();
      await eventually(() => started >= 4);
      expect({ started, running }).to.deep.equal({ started: 4, running: 3 });
      for (let round = 0; round < 7 && done < 7; round += 1) {
        for (const release of held.splice(0)) release();
        await eventually(() => done === 7 || held.length > 0);
      }
      expect(done).to.equal(7);
      expect(maxRunning).to.equal(3);
    });

    it('retries a processor that throws, a bounded number of times', async () => {
      const attempts: string[] = [];
      await each.queue.consume(
        async (received, attempt) => {
          attempts.push(`${received.hookId}:${attempt}`);
          if (received.hookId === 'flaky' && attempt > 1) return {};
          throw new Error('unexpected');
        },
        { concurrency: 2 },
      );
      await each.queue.enqueue([job({ hookId: 'flaky' }), job({ hookId: 'broken' })]);
      // `broken` runs once plus FAST.maxErrorRetries retries, then is dropped.
      await drained(each.queue);
      expect(attempts.filter((a) => a.startsWith('flaky'))).to.deep.equal(['flaky:1', 'flaky:2']);
      expect(attempts.filter((a) => a.startsWith('broken'))).to.deep.equal(['broken:1', 'broken:2', 'broken:3']);
    });

    it('waits for attempts in flight when closing', async () => {
      const release = gate();
      const events: string[] = [];
      await each.queue.consume(
        async () => {
          events.push('started');
          await release.promise;
          events.push('finished');
          return {};
        },
        { concurrency: 1 },
      );
      await each.queue.enqueue([job()]);
      await eventually(() => events.length === 1);
      const closing = each.queue.close().then(() => events.push('closed'));
      // A queue of the same kind with nothing in flight, closed after this one started closing, is closed
      // first: this one is waiting for its attempt, not merely slower.
      const idle = backend.create();
      await idle.consume(async () => ({}), { concurrency: 1 });
      await idle.close();
      expect(events).to.deep.equal(['started']);
      release.open();
      await closing;
      expect(events).to.deep.equal(['started', 'finished', 'closed']);
    });

    it('accepts an empty batch', async () => {
      await each.queue.enqueue([]);
      expect(await each.queue.pendingCount()).to.equal(0);
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

  for (const size of [1, 3])
    it(`has its ${size === 1 ? 'job' : 'batch of deliveries'} picked up again by another worker`, async function () {
      this.timeout(20_000);
      const timing = { lockDurationMs: 1000, stalledIntervalMs: 1000 };
      const producer = backend.create();
      const queueName = backend.queueName();
      const deliveries = Array.from({ length: size }, () => job());
      await producer.enqueue(deliveries);
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

      const attempts: Array<[DeliveryJob, number]> = [];
      await queue?.close();
      queue = createBullmqDeliveryQueue({ connection: backend.connection(), queueName, ...timing });
      await queue.consume(
        async (received, attempt) => {
          attempts.push([received, attempt]);
          return {};
        },
        { concurrency: 1 },
      );
      await eventually(() => attempts.length === size, 15_000);
      await drained(queue);
      // The killed attempt keeps its number: the recovered run is attempt 2, for every delivery of a batch.
      expect(attempts).to.have.deep.members(deliveries.map((delivery) => [delivery, 2]));
    });
});

describe('delivery queue (bullmq): the deliveries of one call, and of calls made together, stored together', () => {
  const backend = bullmqBackend();
  const each = freshQueueEachTest(backend);

  const stored = async (state: 'waiting' | 'delayed') => {
    const admin = new Queue(backend.queueName(), { connection: backend.connection() });
    try {
      return (await admin.getJobCounts(state))[state];
    } finally {
      await admin.close();
    }
  };

  it('as one job of up to 16, in which each delivery keeps its own retries and deferrals', async () => {
    const done = job({ hookId: 'done' });
    const retried = job({ hookId: 'retried' });
    const deferred = job({ hookId: 'deferred' });
    await each.queue.enqueue([done, retried, deferred]);
    expect(await stored('waiting')).to.equal(1);
    expect(await each.queue.pendingCount()).to.equal(1);
    const many = Array.from({ length: 20 }, () => job({ hookId: 'many' }));
    await each.queue.enqueue(many);
    expect(await stored('waiting'), '16 + 4').to.equal(3);

    const attempts: Array<[string, number]> = [];
    const calls = new Map<string, number>();
    await each.queue.consume(
      async (received, attempt) => {
        attempts.push([received.hookId, attempt]);
        const call = (calls.get(received.deliveryId) ?? 0) + 1;
        calls.set(received.deliveryId, call);
        if (received.hookId === 'retried' && attempt === 1) return { retryInMs: 1000 };
        if (received.hookId === 'deferred' && call === 1) return { deferInMs: 1000 };
        return {};
      },
      { concurrency: 4 },
    );
    // The two left the batch as delayed jobs of their own: the batch finished.
    await eventually(async () => (await stored('delayed')) === 2 && (await each.queue.pendingCount()) === 2, {
      what: 'two delayed jobs',
    });
    // Known under their deliveryIds, so re-enqueueing one does not start it over.
    await each.queue.enqueue([retried]);
    await drained(each.queue);
    expect(attempts.filter(([hookId]) => hookId !== 'many')).to.have.deep.members([
      ['done', 1],
      ['retried', 1],
      ['deferred', 1],
      ['retried', 2],
      ['deferred', 1],
    ]);
    expect(attempts.filter(([hookId]) => hookId === 'many')).to.deep.equal(many.map(() => ['many', 1]));
    expect([...calls.values()].reduce((sum, count) => sum + count, 0)).to.equal(25);
  });
  it('stores a delivery to be tried again as soon as its attempt ends, not when the slowest of its batch does', async () => {
    const slow = job({ hookId: 'slow' });
    const deferred = job({ hookId: 'deferred' });
    await each.queue.enqueue([slow, deferred]);
    let releaseSlow!: () => void;
    const slowEnds = new Promise<void>((resolve) => {
      releaseSlow = resolve;
    });
    const runs: string[] = [];
    await each.queue.consume(
      async (received) => {
        runs.push(received.hookId);
        if (received.hookId === 'slow') await slowEnds;
        else if (runs.filter((hookId) => hookId === 'deferred').length === 1) return { deferInMs: 10 };
        return {};
      },
      { concurrency: 4 },
    );
    await eventually(() => runs.filter((hookId) => hookId === 'deferred').length === 2, {
      what: 'the deferred delivery run again',
    });
    expect(
      runs.filter((hookId) => hookId === 'slow'),
      'while the slow one still runs',
    ).to.have.length(1);
    releaseSlow();
    await drained(each.queue);
    expect(runs).to.have.members(['slow', 'deferred', 'deferred']);
  });

  it('with the deliveries of the calls made together, keeping each call in one job where it fits', async () => {
    const small = [
      [job({ hookId: 'a' }), job({ hookId: 'a' })],
      [job({ hookId: 'b' })],
      [job({ hookId: 'c' }), job({ hookId: 'c' })],
    ];
    await Promise.all(small.map((jobs) => each.queue.enqueue(jobs)));
    expect(await stored('waiting'), 'three calls in one job').to.equal(1);
    const large = [0, 1].map(() => Array.from({ length: 10 }, () => job({ hookId: 'large' })));
    await Promise.all(large.map((jobs) => each.queue.enqueue(jobs)));
    expect(await stored('waiting'), 'two calls of 10: a job each').to.equal(3);

    const delivered: string[] = [];
    await each.queue.consume(
      async (received, attempt) => {
        expect(attempt).to.equal(1);
        delivered.push(received.deliveryId);
        return {};
      },
      { concurrency: 4 },
    );
    await drained(each.queue);
    expect(delivered).to.have.members([...small.flat(), ...large.flat()].map((one) => one.deliveryId));
  });
});
