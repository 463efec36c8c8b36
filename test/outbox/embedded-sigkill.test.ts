import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { expect } from 'chai';
import { ADMIN, LOOPBACK_NETWORKS, clientCredentialsToken } from '../support/service.ts';
import { REDIS_URL, removeQueue, uniqueQueueName, withQueue } from '../webhooks-delivery/support/hooks.ts';
import { Receiver, eventually } from '../webhooks-delivery/support/receiver.ts';
import { freePort, startUntilReady } from '../support/processes.ts';

const ROOT = new URL('../..', import.meta.url);
const IN_FLIGHT = 8;
/** Deliveries the receiver answers before it starts holding them, so the killed process has some in flight. */
const ANSWERED_DELIVERIES = 20;
const MAX_CREATIONS = 2000;
const PREFIX = 'sigkill-role-';


/** Deliveries not yet finished in the shared queue: waiting, deferred, or held by a (possibly dead) worker. */
function unfinished(queueName: string): Promise<number> {
  return withQueue(queueName, async (queue) => {
    const counts = await queue.getJobCounts('wait', 'active', 'delayed', 'prioritized', 'waiting-children');
    return Object.values(counts).reduce((sum, count) => sum + count, 0);
  });
}

/**
 * docs/webhooks.md, "Embedded mode is not durable": with embedded documents (no MONGODB_URI) and the queue on
 * Redis, a SIGKILLed process loses its roles, hooks and outbox with it. The deliveries it had queued stay in
 * Redis, and the restarted process (same queue name) takes them but finds no hook for them, so it sends nothing.
 */
describe('embedded documents with the queue on Redis: the process SIGKILLed mid-stream', function () {
  this.timeout(120_000);
  const queueName = uniqueQueueName('embedded-sigkill');
  const children: ChildProcess[] = [];
  let receiver: Receiver;
  let env: Record<string, string>;
  let baseUrl: string;
  let holding = true;

  before(async () => {
    receiver = await Receiver.start();
    receiver.script('/roles', (nth) => (holding && nth > ANSWERED_DELIVERIES ? 'hang' : { status: 200, body: 'ok' }));
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    env = {
      PATH: process.env.PATH ?? '', PORT: String(port), BASE_URL: baseUrl, LOG_LEVEL: 'info',
      REDIS_URL, WEBHOOK_QUEUE_NAME: queueName,
      ADMIN_CLIENT_ID: ADMIN.id, ADMIN_CLIENT_SECRET: ADMIN.secret, COOKIE_KEYS: 'sigkill-test-cookie-key-0123456789',
      WEBHOOK_ALLOWED_NETWORKS: LOOPBACK_NETWORKS, WEBHOOK_RETRY_DELAYS_MS: '50,100,200', WEBHOOK_TIMEOUT_MS: '60000',
      // The restarted process takes over the dead one's running deliveries within seconds, not BullMQ's 30 s.
      WEBHOOK_LOCK_DURATION_MS: '1000', WEBHOOK_STALLED_INTERVAL_MS: '1000',
      AUTH_FAILURE_RATE_LIMIT: '0',
    };
  });

  after(async () => {
    const running = children.filter((child) => child.exitCode === null && child.signalCode === null);
    const exits = running.map((child) => once(child, 'exit'));
    for (const child of running) process.kill(child.pid!, 'SIGKILL');
    await Promise.all(exits);
    await receiver?.close();
    await removeQueue(queueName);
  });

  async function start(): Promise<ChildProcess> {
    return startUntilReady('bin/server.ts', { cwd: ROOT, env, spawned: (child) => children.push(child) });
  }

  async function managementApi() {
    const token = await clientCredentialsToken(baseUrl, ADMIN.id, ADMIN.secret, `${baseUrl}/api`, 'all');
    return (path: string, json?: unknown) => fetch(`${baseUrl}${path}`, {
      method: json === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(json === undefined ? {} : { body: JSON.stringify(json) }),
    });
  }

  const roleOf = (body: string) => (JSON.parse(body) as { data: { name: string } }).data.name;

  it('delivers only answered creations, never one id twice, and the restarted process has and sends nothing of before', async () => {
    const first = await start();
    let api = await managementApi();
    const hook = await api('/api/hooks', { name: 'sigkill', events: ['Role.Created'], config: { url: receiver.url('/roles') } });
    expect(hook.status).to.equal(201);

    const answered = new Set<string>();
    let next = 0;
    let killed = false;
    async function createRoles(): Promise<void> {
      while (!killed && next < MAX_CREATIONS) {
        const name = `${PREFIX}${next++}`;
        try {
          const response = await api('/api/roles', { name, description: 'mid-stream' });
          if (response.status === 201) answered.add(name);
        } catch {
          return;
        }
        // Killed once some deliveries were answered, some are held in flight and more wait in the queue.
        if (!killed && answered.size >= 80 && receiver.requests('/roles').length > ANSWERED_DELIVERIES) {
          killed = true;
          process.kill(first.pid!, 'SIGKILL');
        }
      }
    }
    const exited = once(first, 'exit');
    await Promise.all(Array.from({ length: IN_FLIGHT }, createRoles));
    expect(killed, 'the process was killed mid-stream').to.equal(true);
    await exited;

    const beforeRestart = receiver.requests('/roles');
    for (const request of beforeRestart) expect(answered, 'a delivery for a creation answered 201').to.include(roleOf(request.body));
    const ids = beforeRestart.map((request) => String(request.headers['webhook-id']));
    expect(new Set(ids).size, 'distinct webhook-ids').to.equal(ids.length);
    // The dead process left deliveries in Redis: the restarted one must not send them.
    expect(await unfinished(queueName), 'deliveries left in the queue').to.be.greaterThan(0);

    holding = false;
    await start();
    api = await managementApi();
    await eventually(async () => (await unfinished(queueName)) === 0, { timeoutMs: 30_000, what: 'the queue left by the killed process drained' });

    const roles = await (await api(`/api/roles?search=${encodeURIComponent(`${PREFIX}%`)}`)).json() as Array<{ name: string }>;
    expect(roles.map((role) => role.name)).to.deep.equal([]);
    expect(await (await api('/api/hooks')).json()).to.deep.equal([]);

    // The restarted process does deliver its own events, so the silence above is not a stopped worker.
    const newHook = await api('/api/hooks', { name: 'after restart', events: ['Role.Created'], config: { url: receiver.url('/roles') } });
    expect(newHook.status).to.equal(201);
    expect((await api('/api/roles', { name: 'after-restart', description: 'control' })).status).to.equal(201);
    await eventually(() => receiver.requests('/roles').length > beforeRestart.length, { timeoutMs: 20_000, what: 'the new delivery' });
    const afterRestart = receiver.requests('/roles').slice(beforeRestart.length);
    expect(afterRestart.map((request) => roleOf(request.body))).to.deep.equal(['after-restart']);
    expect(ids).to.not.include(String(afterRestart[0]!.headers['webhook-id']));
  });
});
