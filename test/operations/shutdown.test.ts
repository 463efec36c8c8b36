import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { shutdownBoundMs } from '../../lib/shutdown.ts';
import { freePort, serviceFreeEnv } from '../support/processes.ts';
import { clientCredentialsToken, LOOPBACK_NETWORKS } from '../support/service.ts';
import { eventually } from '../support/wait.ts';
import { REDIS_URL, uniqueQueueName } from '../support/webhooks/hooks.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const ADMIN = { id: 'shutdown-admin', secret: 'shutdown-admin-secret-0123' };
const WEBHOOK_TIMEOUT_MS = 5000;

/** A loopback endpoint that accepts every connection and never answers. */
class DeadEndpoint {
  readonly sockets: Socket[] = [];
  readonly server: Server;
  private constructor(server: Server) {
    this.server = server;
    server.on('connection', (socket) => this.sockets.push(socket));
  }

  static async start(): Promise<DeadEndpoint> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return new DeadEndpoint(server);
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as { port: number }).port}/hook`;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

/** `npm start` with webhooks that may reach loopback, every delivery to the dead endpoint in flight at once. */
class StartedServer {
  readonly output = { stdout: '', stderr: '' };
  readonly exited: Promise<number | null>;
  readonly base: string;
  #token: string | undefined;

  readonly child: ChildProcess;

  constructor(child: ChildProcess, port: number) {
    this.child = child;
    this.base = `http://127.0.0.1:${port}`;
    child.stdout!.on('data', (chunk) => (this.output.stdout += chunk));
    child.stderr!.on('data', (chunk) => (this.output.stderr += chunk));
    this.exited = once(child, 'exit').then(([code]) => code as number | null);
  }

  static async start(env: Record<string, string>): Promise<StartedServer> {
    const port = await freePort();
    const child = spawn(process.execPath, ['bin/server.ts'], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...serviceFreeEnv(),
        PORT: String(port),
        BASE_URL: `http://127.0.0.1:${port}`,
        LOG_LEVEL: 'info',
        ADMIN_CLIENT_ID: ADMIN.id,
        ADMIN_CLIENT_SECRET: ADMIN.secret,
        WEBHOOK_ALLOWED_NETWORKS: LOOPBACK_NETWORKS,
        WEBHOOK_TIMEOUT_MS: String(WEBHOOK_TIMEOUT_MS),
        // Every delivery tried at once, none deferred by the endpoint's circuit, and a failed one retried much later.
        WEBHOOK_CONCURRENCY: '200',
        WEBHOOK_ENDPOINT_CONCURRENCY: '200',
        WEBHOOK_BREAKER_FAILURES: '10000',
        WEBHOOK_RETRY_DELAYS_MS: '600000',
        // What is kept across restarts is not what these tests look at; and SQLite documents beside the shared Redis
        // would hold its lease for local documents, which test runs sharing that Redis would dispute.
        STORAGE: 'memory',
        ...env,
      },
    });
    const server = new StartedServer(child, port);
    await eventually(
      () => {
        if (child.exitCode !== null) throw new Error(`the server exited: ${server.output.stderr}`);
        return /"msg":"ready/.test(server.output.stdout);
      },
      { timeoutMs: 30_000, what: 'the ready line' },
    );
    return server;
  }

  async request(path: string, body: unknown): Promise<number> {
    this.#token ??= await clientCredentialsToken(this.base, ADMIN.id, ADMIN.secret, `${this.base}/api`, 'all');
    const response = await fetch(`${this.base}${path}`, {
      method: 'POST',
      body: JSON.stringify(body),
      headers: { authorization: `Bearer ${this.#token}`, 'content-type': 'application/json' },
    });
    await response.arrayBuffer();
    return response.status;
  }

  async createUsers(count: number, label: string): Promise<void> {
    for (let i = 0; i < count; i += 1)
      expect(await this.request('/api/users', { username: `${label}_${i}` })).to.equal(201);
  }

  async retriesScheduled(): Promise<number> {
    const text = await (await fetch(`${this.base}/metrics`)).text();
    return Number(/^webhook_delivery_attempts_total\{outcome="retry"\} (\d+)$/m.exec(text)?.[1] ?? 0);
  }

  /** The JSON lines logged after the "shutting down" one. */
  linesAfterShutdown(): Array<{ level: number; msg: string; outcome?: string }> {
    const lines = this.output.stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line));
    return lines.slice(lines.findIndex((line) => line.msg === 'shutting down') + 1);
  }

  kill(): void {
    if (this.child.exitCode === null) this.child.kill('SIGKILL');
  }
}

describe('SIGTERM with webhook deliveries pending to an endpoint that never answers', function () {
  this.timeout(120_000);
  let dead: DeadEndpoint;
  let server: StartedServer | undefined;
  const queues: string[] = [];
  beforeEach(async () => {
    dead = await DeadEndpoint.start();
  });
  afterEach(async () => {
    server?.kill();
    await dead.close();
  });
  after(async () => {
    for (const name of queues) {
      const queue = new Queue(name, { connection: new Redis(REDIS_URL, { maxRetriesPerRequest: null }) });
      await queue.obliterate({ force: true });
      await queue.close();
    }
  });

  for (const backend of ['embedded', 'redis'] as const) {
    it(`exits 0 within the bound once the attempts in flight time out; 100 pending retries ${backend === 'redis' ? 'stay queued' : 'are left'} (${backend})`, async () => {
      const queueName = uniqueQueueName('shutdown');
      queues.push(queueName);
      server = await StartedServer.start(backend === 'redis' ? { REDIS_URL, WEBHOOK_QUEUE_NAME: queueName } : {});
      expect(
        await server.request('/api/hooks', { name: 'dead', events: ['User.Created'], config: { url: dead.url } }),
      ).to.equal(201);

      await server.createUsers(100, 'pending');
      await eventually(async () => (await server!.retriesScheduled()) === 100, {
        timeoutMs: 30_000,
        what: '100 retries scheduled',
      });
      await server.createUsers(20, 'in_flight');
      await eventually(() => dead.sockets.length === 120, { timeoutMs: 10_000, what: '20 more attempts in flight' });

      const signalled = performance.now();
      server.child.kill('SIGTERM');
      expect(await server.exited).to.equal(0);
      const tookMs = performance.now() - signalled;
      expect(tookMs, 'the documented bound: 10 s + WEBHOOK_TIMEOUT_MS + 5 s').to.be.below(
        shutdownBoundMs({ WEBHOOK_TIMEOUT_MS }),
      );
      // The 20 attempts in flight finished (timed out) before the exit, each scheduling its retry; nothing else was tried.
      const attempts = server.linesAfterShutdown().filter((line) => line.msg === 'webhook delivery attempt');
      expect(attempts.map((line) => line.outcome)).to.deep.equal(Array(20).fill('retry'));
      expect(dead.sockets.length, 'no attempt started after SIGTERM').to.equal(120);

      if (backend === 'redis') {
        // The next start finds every delivery waiting for its retry.
        const queue = new Queue(queueName, { connection: new Redis(REDIS_URL, { maxRetriesPerRequest: null }) });
        try {
          expect(await queue.getJobCounts('delayed', 'waiting', 'active', 'failed')).to.deep.equal({
            delayed: 120,
            waiting: 0,
            active: 0,
            failed: 0,
          });
        } finally {
          await queue.close();
        }
      }
    });
  }

  it("starts no attempt once SIGTERM came: deliveries still waiting for one of the worker's slots stay queued (redis)", async () => {
    const queueName = uniqueQueueName('shutdown-slots');
    queues.push(queueName);
    // Ten deliveries at a time; forwarded together, the others wait in the worker's batches for a slot.
    server = await StartedServer.start({
      REDIS_URL,
      WEBHOOK_QUEUE_NAME: queueName,
      WEBHOOK_CONCURRENCY: '10',
      WEBHOOK_ENDPOINT_CONCURRENCY: '10',
    });
    expect(
      await server.request('/api/hooks', { name: 'dead', events: ['User.Created'], config: { url: dead.url } }),
    ).to.equal(201);
    await Promise.all(Array.from({ length: 4 }, (_, batch) => server!.createUsers(10, `waiting_${batch}`)));
    await eventually(() => dead.sockets.length === 10, { timeoutMs: 10_000, what: '10 attempts in flight' });

    server.child.kill('SIGTERM');
    expect(await server.exited).to.equal(0);
    const attempts = server.linesAfterShutdown().filter((line) => line.msg === 'webhook delivery attempt');
    expect(attempts.map((line) => line.outcome)).to.deep.equal(Array(10).fill('retry'));
    expect(dead.sockets.length, 'no attempt started after SIGTERM').to.equal(10);
    const queue = new Queue(queueName, { connection: new Redis(REDIS_URL, { maxRetriesPerRequest: null }) });
    try {
      const {
        delayed = 0,
        waiting = 0,
        active = 0,
        failed = 0,
      } = await queue.getJobCounts('delayed', 'waiting', 'active', 'failed');
      expect(active + failed).to.equal(0);
      expect(delayed, 'the ten retries').to.be.at.least(10);
      expect(waiting + delayed, 'and the deliveries never tried').to.be.greaterThan(10);
    } finally {
      await queue.close();
    }
  });

  it('exits at once, code 1, on a second SIGTERM, leaving the deliveries in flight queued', async () => {
    const queueName = uniqueQueueName('shutdown-twice');
    queues.push(queueName);
    server = await StartedServer.start({ REDIS_URL, WEBHOOK_QUEUE_NAME: queueName });
    expect(
      await server.request('/api/hooks', { name: 'dead', events: ['User.Created'], config: { url: dead.url } }),
    ).to.equal(201);
    await server.createUsers(20, 'in_flight');
    await eventually(() => dead.sockets.length === 20, { timeoutMs: 10_000, what: '20 attempts in flight' });

    server.child.kill('SIGTERM');
    await eventually(() => /"msg":"shutting down"/.test(server!.output.stdout), { what: 'the shutting-down line' });
    server.child.kill('SIGTERM');
    expect(await server.exited).to.equal(1);
    const after = server.linesAfterShutdown();
    expect(after.map((line) => line.msg)).to.include(
      'second signal: exiting without waiting for the shutdown to finish',
    );
    expect(
      after.filter((line) => line.msg === 'webhook delivery attempt'),
      'the attempts were cut, not waited for',
    ).to.deep.equal([]);

    // Their jobs are still in Redis (held by the dead worker's lock until another worker takes them over).
    const queue = new Queue(queueName, { connection: new Redis(REDIS_URL, { maxRetriesPerRequest: null }) });
    try {
      const { delayed = 0, waiting = 0, active = 0 } = await queue.getJobCounts('delayed', 'waiting', 'active');
      expect(active + waiting + delayed).to.be.greaterThan(0);
    } finally {
      await queue.close();
    }
  });
});
