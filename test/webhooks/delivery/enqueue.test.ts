import { expect } from 'chai';
import { createMemoryDeliveryQueue } from '../../../adapters/memory/delivery-queue.ts';
import { startWebhookWorker } from '../../../app/worker.ts';
import type { AttemptResult, DeliveryJob, DeliveryQueue } from '../../../lib/ports/queue.ts';
import { craftedEvent } from '../../support/events.ts';
import { startService, type RunningService } from '../../support/service.ts';
import {
  FAST_ENV,
  REDIS_URL,
  bodyOf,
  createHook,
  getJson,
  removeQueue,
  uniqueQueueName,
  verifyDelivery,
  withQueue,
} from '../../support/webhooks/hooks.ts';
import { Receiver, eventually } from '../../support/webhooks/receiver.ts';

/**
 * A service for the tests of the enclosing block, on `queue` with some of its methods replaced; the service and the
 * queue are closed after the block.
 */
function serviceOn(queue: DeliveryQueue, replaced: Partial<DeliveryQueue>, options: { webhookWorker?: boolean } = {}) {
  let web: RunningService | undefined;
  before(async () => {
    web = await startService({
      env: FAST_ENV,
      stores: {
        queue: {
          kind: queue.kind,
          enqueue: (jobs, records) => queue.enqueue(jobs, records),
          consume: (processor, consumeOptions) => queue.consume(processor, consumeOptions),
          pendingCount: () => queue.pendingCount(),
          close: () => queue.close(),
          ...replaced,
        },
      },
      ...options,
    });
  });
  after(async () => {
    await web?.close();
    await queue.close();
  });
  return {
    get web() {
      if (!web) throw new Error("no service outside the block's tests");
      return web;
    },
  };
}

describe('webhook fan-out: events committed with the change, moved to the queue by the outbox relay', () => {
  let receiver: Receiver;

  before(async () => {
    receiver = await Receiver.start();
  });
  after(async () => receiver.close());

  describe('with BullMQ and no worker in the web process', () => {
    const queueName = uniqueQueueName('enqueue');
    const env = { ...FAST_ENV, REDIS_URL, WEBHOOK_QUEUE_NAME: queueName };
    let web: RunningService;

    before(async () => {
      web = await startService({ env, webhookWorker: false });
    });
    after(async () => {
      await web.close();
      await removeQueue(queueName);
    });

    it('puts the job in Redis under the delivery id right after the commit; a worker then delivers it', async () => {
      const hook = await createHook(web, { events: ['Role.Created'], config: { url: receiver.url('/later') } });
      const response = await web.request('/api/roles', { method: 'POST', json: { name: 'durable-role' } });
      expect(response.status).to.equal(201);

      const delivery = await eventually(async () => (await getJson(web, `/api/hooks/${hook.id}/deliveries`))[0]);
      expect(delivery).to.include({ status: 'pending', attempts: 0, event: 'Role.Created' });
      const job = await eventually(() => withQueue(queueName, (queue) => queue.getJob(delivery.id)));
      expect(job?.id).to.equal(delivery.id);
      expect(job?.data).to.include({ deliveryId: delivery.id, hookId: hook.id, event: 'Role.Created' });
      expect(JSON.stringify(job?.data)).to.not.include(hook.signingKey);
      expect(receiver.requests('/later')).to.have.length(0);

      // The worker entry point, sharing this process's documents as a separate worker shares MongoDB.
      const worker = await startWebhookWorker({ env, stores: { documents: web.service.core.store } });
      try {
        const request = await eventually(() => receiver.requests('/later')[0]);
        expect(request.headers['webhook-id']).to.equal(delivery.id);
        expect(verifyDelivery(request, hook.signingKey).data.name).to.equal('durable-role');
        await eventually(
          async () => (await getJson(web, `/api/hooks/${hook.id}/deliveries`))[0].status === 'succeeded',
        );
      } finally {
        await worker.close();
      }
    });

    it('sends a finished delivery once however often its entry is forwarded again, its job gone from Redis', async () => {
      const hook = await createHook(web, { events: ['User.Created'], config: { url: receiver.url('/forwarded') } });
      const entry = {
        id: 'obx_forwarded_again',
        claim: 'test',
        createdAt: Date.now(),
        attempts: 2,
        events: [craftedEvent('User.Created', { data: { id: 'forwarded-user' } })],
      };
      await web.service.webhooks.fanOut(entry);
      const worker = await startWebhookWorker({ env, stores: { documents: web.service.core.store } });
      try {
        const [delivery] = await eventually(async () => {
          const list = await getJson(web, `/api/hooks/${hook.id}/deliveries`);
          return list[0]?.status === 'succeeded' && list;
        });
        // Finished jobs leave the queue at once: only the record tells the second forward that it was delivered.
        await eventually(async () => (await withQueue(queueName, (queue) => queue.getJob(delivery.id))) === undefined);
        await web.service.webhooks.fanOut(entry);
        await web.service.webhooks.fanOut(entry);
        await eventually(
          async () =>
            (await withQueue(queueName, (queue) => queue.getJobCounts('waiting', 'active', 'delayed'))).waiting === 0,
        );
        expect(receiver.requests('/forwarded')).to.have.length(1);
        expect(await getJson(web, `/api/hooks/${hook.id}/deliveries`)).to.have.length(1);
      } finally {
        await worker.close();
      }
    });
  });

  describe('with a queue that refuses jobs (Redis down)', () => {
    const queue = createMemoryDeliveryQueue();
    const refusing = { on: true };
    const service = serviceOn(
      queue,
      {
        // As BullMQ with Redis down: the records are written, then the jobs refused.
        async enqueue(jobs, records) {
          if (!refusing.on) return queue.enqueue(jobs, records);
          await records?.();
          throw new Error('Connection is closed.');
        },
      },
      { webhookWorker: false },
    );

    it('answers 201, keeps the event in the outbox without a stray delivery, and queues it once the queue is back', async () => {
      const hook = await createHook(service.web, { events: ['Role.Created'], config: { url: receiver.url('/never') } });
      const response = await service.web.request('/api/roles', { method: 'POST', json: { name: 'unqueued-role' } });
      expect(response.status).to.equal(201);
      const outbox = service.web.service.core.store.collection('outbox');
      // Released after its first try: the forward that failed has withdrawn what it recorded.
      await eventually(async () => {
        const entry = await outbox.findOne({});
        return entry?.attempts === 1 && entry.claim === null;
      });
      expect(await getJson(service.web, `/api/hooks/${hook.id}/deliveries`)).to.deep.equal([]);
      expect(await queue.pendingCount()).to.equal(0);

      refusing.on = false;
      const [delivery] = await eventually(async () => {
        const found = await getJson(service.web, `/api/hooks/${hook.id}/deliveries`);
        return found.length === 1 && (await queue.pendingCount()) === 1 ? found : undefined;
      });
      expect(delivery).to.include({ status: 'pending', event: 'Role.Created' });
      expect(await outbox.countDocuments({})).to.equal(0);
    });

    it('lets requests whose events nobody subscribes to through', async () => {
      const hook = await createHook(service.web, { events: ['Role.Created'], config: { url: receiver.url('/never') } });
      // Creating a user publishes User.Created, which no hook subscribes to: nothing to enqueue, nothing to refuse.
      const response = await service.web.request('/api/users', {
        method: 'POST',
        json: { username: 'nobody_listens' },
      });
      expect(response.status, await response.clone().text()).to.equal(201);
      expect((await bodyOf(response)).username).to.equal('nobody_listens');
      expect(await getJson(service.web, `/api/hooks/${hook.id}/deliveries`)).to.deep.equal([]);
    });
  });

  describe('a delivery run again after it finished (a job run again after a crash)', () => {
    const queue = createMemoryDeliveryQueue();
    const runs: Array<{ job: DeliveryJob; again: (attempt: number) => Promise<AttemptResult> }> = [];
    const service = serviceOn(queue, {
      consume: (processor, options) =>
        queue.consume(async (job, attempt) => {
          runs.push({ job, again: (next) => processor(job, next) });
          return processor(job, attempt);
        }, options),
    });

    it('is not sent again', async () => {
      const hook = await createHook(service.web, { events: ['Role.Created'], config: { url: receiver.url('/once') } });
      await service.web.request('/api/roles', { method: 'POST', json: { name: 'sent-once' } });
      const [delivery] = await eventually(async () => {
        const found = await getJson(service.web, `/api/hooks/${hook.id}/deliveries`);
        return found[0]?.status === 'succeeded' && found;
      });
      const run = runs.find(({ job }) => job.deliveryId === delivery.id)!;
      expect(await run.again(2)).to.deep.equal({});
      expect(receiver.requests('/once')).to.have.length(1);
      expect((await getJson(service.web, `/api/hooks/${hook.id}/deliveries`))[0]).to.include({
        status: 'succeeded',
        attempts: 1,
      });
    });
  });

  describe('with the in-process queue (embedded mode)', () => {
    const queue = createMemoryDeliveryQueue();
    let web: RunningService;

    before(async () => {
      web = await startService({ env: FAST_ENV, stores: { queue }, webhookWorker: false });
    });
    after(async () => {
      await web.close();
      await queue.close();
    });

    it('holds one job per subscribed hook when the response arrives', async () => {
      await createHook(web, { events: ['Role.Created'], config: { url: receiver.url('/memory-a') } });
      await createHook(web, { events: ['Role.Created', 'Role.Deleted'], config: { url: receiver.url('/memory-b') } });
      const response = await web.request('/api/roles', { method: 'POST', json: { name: 'memory-role' } });
      expect(response.status).to.equal(201);
      await eventually(async () => (await queue.pendingCount()) === 2);
    });
  });
});
