import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { expect } from 'chai';
import { craftedEvent } from '../../support/events.ts';
import { MongoClient } from 'mongodb';
import { LOOPBACK_NETWORKS, startService, type RunningService } from '../../support/service.ts';
import { REDIS_URL, createHook, removeQueue, uniqueQueueName, verifyDelivery } from '../../support/webhooks/hooks.ts';
import { Receiver, eventually, type ReceivedRequest } from '../../support/webhooks/receiver.ts';
import { startUntilReady } from '../../support/processes.ts';

const MONGODB_URI = process.env.MONGODB_URI;
const ROOT = new URL('../../..', import.meta.url);
const EVENTS = 200;
const CONCURRENCY = 4;

function withDatabase(uri: string, name: string): string {
  return uri.replace(/^(mongodb(?:\+srv)?:\/\/[^/?]+)(\/[^?]*)?/, `$1/${name}`);
}

/**
 * At-least-once delivery across a worker crash: a separate worker process is SIGKILLed while it holds
 * deliveries in flight (sent, unanswered), events keep coming while no worker runs, and a second worker
 * process delivers everything, re-sending the interrupted deliveries under their original webhook-id.
 *
 * With MONGODB_URI, web and workers share MongoDB and Redis and the workers are `node bin/worker.ts`, as
 * in production. Without it (build machines cannot install MongoDB), the workers run the same worker code
 * on the same Redis queue, with a copy of the hook in their own embedded store instead of the shared
 * database (test/support/webhooks/seeded-worker.ts); the web side cannot see their logs, so only the receiver is checked.
 */
describe(`webhook durability: a worker process killed mid-stream (${MONGODB_URI ? 'MongoDB + Redis' : 'Redis; hook seeded into the worker'})`, function () {
  this.timeout(90_000);
  const queueName = uniqueQueueName('durability');
  const database = `webhooks_durability_${randomBytes(4).toString('hex')}`;
  const sharedEnv: Record<string, string> = {
    REDIS_URL,
    WEBHOOK_QUEUE_NAME: queueName,
    WEBHOOK_LOCK_DURATION_MS: '1000',
    WEBHOOK_STALLED_INTERVAL_MS: '1000',
    WEBHOOK_RETRY_DELAYS_MS: '50,100,200,400',
    WEBHOOK_TIMEOUT_MS: '10000',
    WEBHOOK_CONCURRENCY: String(CONCURRENCY),
    // All of them in flight to the one endpoint, so that the killed worker holds CONCURRENCY of them.
    WEBHOOK_ENDPOINT_CONCURRENCY: String(CONCURRENCY),
    WEBHOOK_ALLOWED_NETWORKS: LOOPBACK_NETWORKS,
    ...(MONGODB_URI ? { MONGODB_URI: withDatabase(MONGODB_URI, database), WEBHOOK_WORKER_IN_WEB: 'false' } : {}),
  };
  const workers: ChildProcess[] = [];
  let receiver: Receiver;
  let web: RunningService;
  /** Until the first worker is killed, requests beyond the first 20 are held unanswered. */
  let holding = true;
  const held = new Set<ReceivedRequest>();
  const answered = () => receiver.requests('/stream').filter((request) => !held.has(request));

  before(async () => {
    receiver = await Receiver.start();
    receiver.script('/stream', (nth) => (holding && nth > 20 ? 'hang' : { status: 200, body: 'ok' }));
    web = await startService({ env: sharedEnv, webhookWorker: false });
  });

  after(async () => {
    for (const worker of workers) if (worker.exitCode === null) worker.kill('SIGKILL');
    await web?.close();
    await receiver?.close();
    await removeQueue(queueName);
    if (MONGODB_URI) {
      const client = await MongoClient.connect(sharedEnv.MONGODB_URI!);
      await client.db().dropDatabase();
      await client.close();
    }
  });

  async function startWorker(hookRecord: unknown): Promise<ChildProcess> {
    const script = MONGODB_URI ? 'bin/worker.ts' : 'test/support/webhooks/seeded-worker.ts';
    return startUntilReady(script, {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        ...sharedEnv,
        WORKER_PORT: '0',
        LOG_LEVEL: 'info',
        SEEDED_HOOK: JSON.stringify(hookRecord),
      },
      name: 'worker',
      spawned: (child) => workers.push(child),
    });
  }

  async function publish(from: number, to: number): Promise<void> {
    for (let start = from; start < to; start += 10) {
      const batch = Array.from({ length: Math.min(10, to - start) }, (_, i) =>
        craftedEvent('User.Created', {
          data: { id: `user-${start + i}`, sequence: start + i },
        }),
      );
      await web.service.core.bus.publish(batch);
    }
  }

  it('delivers every event at least once, re-sending interrupted ones under the same webhook-id', async () => {
    const hook = await createHook(web, { events: ['User.Created'], config: { url: receiver.url('/stream') } });
    const record = await web.service.webhooks.management.mustFind(hook.id);

    const first = await startWorker(record);
    await publish(0, EVENTS / 2);
    // The first worker has sent CONCURRENCY deliveries that will never be answered: kill it mid-attempt.
    await eventually(() => receiver.requests('/stream').length >= 20 + CONCURRENCY, 30_000);
    first.kill('SIGKILL');
    await once(first, 'exit');
    for (const request of receiver.requests('/stream').slice(20)) held.add(request);
    const interrupted = [...held].map((request) => request.headers['webhook-id']);
    expect(interrupted).to.have.length(CONCURRENCY);
    holding = false;

    // Events keep coming while no worker runs; they wait in Redis.
    await publish(EVENTS / 2, EVENTS);
    await startWorker(record);

    const bySequence = new Map<number, ReceivedRequest[]>();
    await eventually(() => {
      bySequence.clear();
      for (const request of answered()) {
        const sequence = JSON.parse(request.body).data.sequence as number;
        bySequence.set(sequence, [...(bySequence.get(sequence) ?? []), request]);
      }
      return bySequence.size === EVENTS;
    }, 60_000);

    expect([...bySequence.keys()].sort((a, b) => a - b)).to.deep.equal(Array.from({ length: EVENTS }, (_, i) => i));
    for (const request of receiver.requests('/stream')) verifyDelivery(request, hook.signingKey);
    for (const requests of bySequence.values()) {
      expect(new Set(requests.map((r) => r.headers['webhook-id'])).size, 'one webhook-id per event').to.equal(1);
    }
    const answeredIds = new Set(answered().map((r) => r.headers['webhook-id']));
    for (const id of interrupted) expect(answeredIds.has(id), `interrupted ${id} re-sent`).to.equal(true);

    if (MONGODB_URI) {
      await eventually(async () => {
        const response = await web.request(`/api/hooks/${hook.id}/deliveries?status=succeeded&page_size=1`);
        return Number(response.headers.get('total-number')) === EVENTS;
      }, 30_000);
    }
  });
});
