import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { expect } from 'chai';
import { MongoClient } from 'mongodb';
import { ADMIN, LOOPBACK_NETWORKS, clientCredentialsToken } from '../../support/service.ts';
import { REDIS_URL, removeQueue, uniqueQueueName } from '../../support/webhooks/hooks.ts';
import { Receiver, eventually } from '../../support/webhooks/receiver.ts';
import { freePort, startUntilReady } from '../../support/processes.ts';

const MONGODB_URI = process.env.MONGODB_URI;
const ROOT = new URL('../../..', import.meta.url);
const IN_FLIGHT = 8;

function withDatabase(uri: string, name: string): string {
  return uri.replace(/^(mongodb(?:\+srv)?:\/\/[^/?]+)(\/[^?]*)?/, `$1/${name}`);
}

/**
 * The web process is SIGKILLed while role creations stream in (MongoDB + Redis, as in production). Every
 * creation answered 201 committed its event in the same MongoDB transaction, so the relay of the worker
 * process (and of the restarted web process) delivers it, once per webhook-id, even when the web process
 * died between its commit and the enqueue.
 */
describe('outbox with MongoDB: the web process killed mid-stream', function () {
  this.timeout(120_000);
  const database = `outbox_crash_${randomBytes(4).toString('hex')}`;
  const queueName = uniqueQueueName('outbox-crash');
  const children: ChildProcess[] = [];
  let receiver: Receiver;
  let env: Record<string, string>;
  let baseUrl: string;

  before(async function () {
    if (!MONGODB_URI) this.skip();
    receiver = await Receiver.start();
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    env = {
      PATH: process.env.PATH ?? '',
      PORT: String(port),
      WORKER_PORT: '0',
      BASE_URL: baseUrl,
      LOG_LEVEL: 'info',
      MONGODB_URI: withDatabase(MONGODB_URI!, database),
      REDIS_URL,
      WEBHOOK_QUEUE_NAME: queueName,
      ADMIN_CLIENT_ID: ADMIN.id,
      ADMIN_CLIENT_SECRET: ADMIN.secret,
      COOKIE_KEYS: 'crash-test-cookie-key-0123456789',
      WEBHOOK_WORKER_IN_WEB: 'false',
      WEBHOOK_ALLOWED_NETWORKS: LOOPBACK_NETWORKS,
      WEBHOOK_RETRY_DELAYS_MS: '50,100,200',
    };
  });

  after(async () => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    await receiver?.close();
    if (!MONGODB_URI) return;
    await removeQueue(queueName);
    const client = await MongoClient.connect(env.MONGODB_URI!);
    await client.db().dropDatabase();
    await client.close();
  });

  async function start(script: string): Promise<ChildProcess> {
    return startUntilReady(script, { cwd: ROOT, env, spawned: (child) => children.push(child) });
  }

  it('delivers the event of every creation answered 201, once per webhook-id', async () => {
    const web = await start('bin/server.ts');
    await start('bin/worker.ts');
    const token = await clientCredentialsToken(baseUrl, ADMIN.id, ADMIN.secret, `${baseUrl}/api`, 'all');
    const api = (path: string, json: unknown) =>
      fetch(`${baseUrl}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(json),
      });
    const hook = await api('/api/hooks', {
      name: 'crash',
      events: ['Role.Created'],
      config: { url: receiver.url('/roles') },
    });
    expect(hook.status).to.equal(201);

    const answered = new Set<string>();
    let next = 0;
    let killed = false;
    async function createRoles(): Promise<void> {
      while (!killed) {
        const name = `crash-role-${next++}`;
        try {
          const response = await api('/api/roles', { name, description: 'mid-stream' });
          if (response.status === 201) answered.add(name);
        } catch {
          return;
        }
        if (answered.size >= 150 && !killed) {
          killed = true;
          web.kill('SIGKILL');
        }
      }
    }
    await Promise.all(Array.from({ length: IN_FLIGHT }, createRoles));
    await once(web, 'exit').catch(() => undefined);

    const byRole = new Map<string, Set<string>>();
    await eventually(
      () => {
        byRole.clear();
        for (const request of receiver.requests('/roles')) {
          const name = (JSON.parse(request.body) as { data: { name: string } }).data.name;
          byRole.set(name, (byRole.get(name) ?? new Set()).add(String(request.headers['webhook-id'])));
        }
        return [...answered].every((name) => byRole.has(name));
      },
      { timeoutMs: 60_000, what: 'a delivery for every creation answered 201' },
    );
    for (const [name, ids] of byRole) expect(ids.size, `deliveries of ${name}`).to.equal(1);
  });
});
