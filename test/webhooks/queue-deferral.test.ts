import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { expect } from 'chai';
import { createBullmqDeliveryQueue } from '../../adapters/bullmq/delivery-queue.ts';
import { createMemoryDeliveryQueue } from '../../adapters/memory/delivery-queue.ts';
import type { DeliveryJob, DeliveryQueue } from '../../lib/ports/queue.ts';
import { eventually } from '../support/wait.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

let sequence = 0;
function job(): DeliveryJob {
  sequence += 1;
  return {
    deliveryId: `defer${Date.now().toString(36)}x${sequence}`,
    hookId: 'hook1',
    event: 'User.Created',
    payload: JSON.stringify({ event: 'User.Created', data: { sequence } }),
    createdAt: Date.now(),
  };
}

const backends: { name: string; create: () => Promise<{ queue: DeliveryQueue; cleanup: () => Promise<void> }> }[] = [
  { name: 'memory', create: async () => ({ queue: createMemoryDeliveryQueue(), cleanup: async () => {} }) },
  {
    name: 'bullmq',
    create: async () => {
      const redis = new Redis(REDIS_URL);
      const queueName = `deferral-test-${process.pid}-${Date.now().toString(36)}-${++sequence}`;
      return {
        queue: createBullmqDeliveryQueue({ connection: redis, queueName }),
        cleanup: async () => {
          const admin = new Queue(queueName, { connection: redis });
          await admin.obliterate({ force: true });
          await admin.close();
          await redis.quit();
        },
      };
    },
  },
];

for (const backend of backends) {
  describe(`delivery queue deferral (${backend.name})`, () => {
    let queue: DeliveryQueue;
    let cleanup: () => Promise<void>;

    beforeEach(async () => {
      ({ queue, cleanup } = await backend.create());
    });
    afterEach(async () => {
      await queue.close();
      await cleanup();
    });

    it('runs a deferred job again later under the same attempt number, with the job unchanged', async () => {
      const seen: Array<{ attempt: number; job: DeliveryJob }> = [];
      // Deferred twice, then a retry, deferred once more, then done: two real attempts.
      const plan = ['defer', 'defer', 'retry', 'defer', 'done'];
      await queue.consume(
        async (received, attempt) => {
          seen.push({ attempt, job: received });
          const step = plan[seen.length - 1];
          if (step === 'defer') return { deferInMs: 30 };
          return step === 'retry' ? { retryInMs: 30 } : {};
        },
        { concurrency: 1 },
      );
      const delivery = job();
      await queue.enqueue([delivery]);
      await eventually(async () => seen.length === plan.length && (await queue.pendingCount()) === 0, {
        what: 'the plan to run',
      });
      expect(seen.map((call) => call.attempt)).to.deep.equal([1, 1, 1, 2, 2]);
      for (const call of seen) expect(call.job).to.deep.equal(delivery);
    });

    it('keeps a deferred job pending, and frees its slot for other jobs meanwhile', async () => {
      const order: string[] = [];
      await queue.consume(
        async (received, attempt) => {
          order.push(`${received.hookId}#${attempt}`);
          return received.hookId === 'busy' && order.length === 1 ? { deferInMs: 300 } : {};
        },
        { concurrency: 1 },
      );
      await queue.enqueue([{ ...job(), hookId: 'busy' }]);
      await eventually(() => order.length === 1, { what: 'the first run' });
      await queue.enqueue([{ ...job(), hookId: 'other' }]);
      await eventually(() => order.length === 2, { what: 'the other job' });
      expect(await queue.pendingCount()).to.equal(1);
      await eventually(async () => order.length === 3 && (await queue.pendingCount()) === 0, {
        what: 'the deferred job',
      });
      expect(order).to.deep.equal(['busy#1', 'other#1', 'busy#1']);
    });
  });
}
