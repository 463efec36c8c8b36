import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { rmSync } from 'node:fs';
import { expect } from 'chai';
import { ADMIN, LOOPBACK_NETWORKS, clientCredentialsToken } from '../../support/service.ts';
import { uniqueQueueName } from '../../support/webhooks/hooks.ts';
import { Receiver, eventually } from '../../support/webhooks/receiver.ts';
import { freePort, startUntilReady } from '../../support/processes.ts';
import { tempDataDir } from '../../support/sqlite.ts';
import { PrivateRedis, redisServerInstalled } from '../../support/redis-server.ts';

const ROOT = new URL('../../..', import.meta.url);
const IN_FLIGHT = 8;
/** Deliveries the receiver answers before it starts holding them, so the killed process has some in flight. */
const ANSWERED_DELIVERIES = 20;
const MAX_CREATIONS = 2000;
const PREFIX = 'sigkill-role-';

/**
 * docs/webhooks.md, "Durability": documents in the SQLite file (no MONGODB_URI) and the queue on Redis (a private
 * redis-server here, so that no other run shares its lease), the process SIGKILLed mid-stream and restarted on the same
 * data directory and queue. The roles and the hook are still there, and every creation answered 201 is delivered,
 * each under one webhook-id, across the restart.
 */
describe('SQLite documents with the queue on Redis: the process SIGKILLed mid-stream', function () {
  this.timeout(120_000);
  const queueName = uniqueQueueName('embedded-sigkill');
  const children: ChildProcess[] = [];
  let receiver: Receiver;
  let redis: PrivateRedis | undefined;
  let dataDir: string;
  let env: Record<string, string>;
  let baseUrl: string;
  let holding = true;

  before(async function () {
    // Reported pending, never passed, where the redis-server binary is missing.
    if (!redisServerInstalled()) this.skip();
    redis = await PrivateRedis.start();
    receiver = await Receiver.start();
    receiver.script('/roles', (nth) => (holding && nth > ANSWERED_DELIVERIES ? 'hang' : { status: 200, body: 'ok' }));
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    dataDir = tempDataDir();
    env = {
      PATH: process.env.PATH ?? '',
      PORT: String(port),
      BASE_URL: baseUrl,
      LOG_LEVEL: 'info',
      DATA_DIR: dataDir,
      REDIS_URL: redis.url,
      WEBHOOK_QUEUE_NAME: queueName,
      ADMIN_CLIENT_ID: ADMIN.id,
      ADMIN_CLIENT_SECRET: ADMIN.secret,
      WEBHOOK_ALLOWED_NETWORKS: LOOPBACK_NETWORKS,
      WEBHOOK_RETRY_DELAYS_MS: '50,100,200',
      WEBHOOK_TIMEOUT_MS: '60000',
      // The restarted process takes over the dead one's running deliveries within seconds, not BullMQ's 30 s.
      WEBHOOK_LOCK_DURATION_MS: '1000',
      WEBHOOK_STALLED_INTERVAL_MS: '1000',
      AUTH_FAILURE_RATE_LIMIT: '0',
    };
  });

  after(async () => {
    const running = children.filter((child) => child.exitCode === null && child.signalCode === null);
    const exits = running.map((child) => once(child, 'exit'));
    for (const child of running) process.kill(child.pid!, 'SIGKILL');
    await Promise.all(exits);
    await receiver?.close();
    await redis?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  async function start(): Promise<ChildProcess> {
    return startUntilReady('bin/server.ts', { cwd: ROOT, env, spawned: (child) => children.push(child) });
  }

  async function managementApi() {
    const token = await clientCredentialsToken(baseUrl, ADMIN.id, ADMIN.secret, `${baseUrl}/api`, 'all');
    return (path: string, json?: unknown) =>
      fetch(`${baseUrl}${path}`, {
        method: json === undefined ? 'GET' : 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        ...(json === undefined ? {} : { body: JSON.stringify(json) }),
      });
  }

  const roleOf = (body: string) => (JSON.parse(body) as { data: { name: string } }).data.name;

  it('keeps the roles and the hook, and delivers every answered creation under one webhook-id across the restart', async () => {
    const first = await start();
    let api = await managementApi();
    const hook = await api('/api/hooks', {
      name: 'sigkill',
      events: ['Role.Created'],
      config: { url: receiver.url('/roles') },
    });
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
    for (const request of receiver.requests('/roles'))
      expect(answered, 'a delivery for a creation answered 201').to.include(roleOf(request.body));

    holding = false;
    await start();
    api = await managementApi();
    const roles = (await (
      await api(`/api/roles?search=${encodeURIComponent(`${PREFIX}%`)}&page_size=100`)
    ).json()) as Array<{ name: string }>;
    expect(roles.length, 'the roles were kept').to.be.at.least(Math.min(answered.size, 100));
    expect(((await (await api('/api/hooks')).json()) as unknown[]).length, 'the hook was kept').to.equal(1);
    const delivered = () => new Set(receiver.requests('/roles').map((request) => roleOf(request.body)));
    await eventually(() => [...answered].every((name) => delivered().has(name)), {
      timeoutMs: 60_000,
      what: 'every answered creation delivered',
    });
    const idsByRole = new Map<string, Set<string>>();
    for (const request of receiver.requests('/roles')) {
      const ids = idsByRole.get(roleOf(request.body)) ?? new Set<string>();
      ids.add(String(request.headers['webhook-id']));
      idsByRole.set(roleOf(request.body), ids);
    }
    for (const [role, ids] of idsByRole) expect([...ids], `${role}: one webhook-id`).to.have.length(1);
  });
});
