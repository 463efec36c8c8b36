import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { expect } from 'chai';
import { MongoClient } from 'mongodb';
import { resolveSettings } from '../../../lib/settings.ts';
import { DEFAULT_RETRY_DELAYS_MS } from '../../../lib/webhooks/retry-policy.ts';
import { freePort, startUntilReady } from '../../support/processes.ts';
import { LOOPBACK_NETWORKS, startService, type RunningService } from '../../support/service.ts';
import { REDIS_URL, createHook, removeQueue, uniqueQueueName } from '../../support/webhooks/hooks.ts';
import { Receiver, eventually } from '../../support/webhooks/receiver.ts';

const ROOT = new URL('../../..', import.meta.url);

/** Runs a script with a clean environment and collects its output. */
function run(script: string, env: Record<string, string>) {
  const child = spawn(process.execPath, [script], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = { stdout: '', stderr: '' };
  child.stdout!.on('data', (chunk: Buffer) => {
    output.stdout += chunk.toString();
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    output.stderr += chunk.toString();
  });
  return { child, output };
}

describe('webhook worker process (`npm run worker`)', function () {
  this.timeout(30_000);

  it('refuses to start without the shared document store, with a clear message', async () => {
    const { child, output } = run('bin/worker.ts', { REDIS_URL });
    const [code] = await once(child, 'exit');
    expect(code).to.equal(2);
    expect(output.stderr).to.match(/set MONGODB_URI/);
  });

  it('refuses to start without Redis', async () => {
    const { child, output } = run('bin/worker.ts', { MONGODB_URI: 'mongodb://127.0.0.1:1/never-contacted' });
    const [code] = await once(child, 'exit');
    expect(code).to.equal(2);
    expect(output.stderr).to.match(/set REDIS_URL/);
  });

  it('logs one ready line and stops gracefully on SIGTERM', async () => {
    const queueName = uniqueQueueName('worker-process');
    const hook = {
      id: 'seeded',
      name: 'seeded',
      event: null,
      events: ['User.Created'],
      config: { url: 'http://127.0.0.1:9/' },
      enabled: true,
      signingKey: 'whsec_AAAA',
      retiredSigningKeys: [],
      createdAt: 0,
      updatedAt: 0,
    };
    const script = process.env.MONGODB_URI ? 'bin/worker.ts' : 'test/support/webhooks/seeded-worker.ts';
    const { child, output } = run(script, {
      REDIS_URL,
      WEBHOOK_QUEUE_NAME: queueName,
      LOG_LEVEL: 'info',
      SEEDED_HOOK: JSON.stringify(hook),
      ...(process.env.MONGODB_URI ? { MONGODB_URI: process.env.MONGODB_URI } : {}),
    });
    try {
      await eventually(() => /ready/.test(output.stdout), 20_000);
      expect(output.stdout.split('\n').filter((line) => /ready/.test(line))).to.have.length(1);
      child.kill('SIGTERM');
      const [code] = await once(child, 'exit');
      expect(code).to.equal(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await removeQueue(queueName);
    }
  });
});

/** The value of one series in a Prometheus text exposition (0 when the series is absent). */
function seriesValue(text: string, series: string): number {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

describe("the worker process's own HTTP: /healthz, /readyz and /metrics", function () {
  this.timeout(60_000);
  const queueName = uniqueQueueName('worker-metrics');
  // With MongoDB, web and worker share a database of this test's own (as in production); without it, see below.
  const mongo = process.env.MONGODB_URI
    ? {
        MONGODB_URI: process.env.MONGODB_URI.replace(
          /^(mongodb(?:\+srv)?:\/\/[^/?]+)(\/[^?]*)?/,
          `$1/${queueName.replace(/\W/g, '_')}`,
        ),
      }
    : undefined;
  let receiver: Receiver;
  let web: RunningService;
  let worker: ChildProcess | undefined;

  before(async () => {
    receiver = await Receiver.start();
    // The web process only enqueues (WEBHOOK_WORKER_IN_WEB=false): every attempt is the worker's.
    web = await startService({ env: { REDIS_URL, WEBHOOK_QUEUE_NAME: queueName, ...mongo }, webhookWorker: false });
  });
  after(async () => {
    if (worker?.exitCode === null) worker.kill('SIGKILL');
    await web?.close();
    await receiver?.close();
    await removeQueue(queueName);
    if (mongo) {
      const client = await MongoClient.connect(mongo.MONGODB_URI);
      await client.db().dropDatabase();
      await client.close();
    }
  });

  it('counts the delivery attempts it makes in webhook_delivery_attempts_total, where the web process counts none', async () => {
    const hook = await createHook(web, { events: ['User.Created'], config: { url: receiver.url('/counted') } });
    const record = await web.service.webhooks.management.mustFind(hook.id);
    const port = await freePort();
    // Without MongoDB the worker gets a copy of the hook (test/support/webhooks/seeded-worker.ts); with it, the real entry point.
    const script = mongo ? 'bin/worker.ts' : 'test/support/webhooks/seeded-worker.ts';
    worker = await startUntilReady(script, {
      cwd: ROOT,
      name: 'worker',
      spawned: (child) => {
        worker = child;
      },
      env: {
        PATH: process.env.PATH,
        REDIS_URL,
        WEBHOOK_QUEUE_NAME: queueName,
        WORKER_PORT: String(port),
        LOG_LEVEL: 'info',
        WEBHOOK_ALLOWED_NETWORKS: LOOPBACK_NETWORKS,
        SEEDED_HOOK: JSON.stringify(record),
        ...mongo,
      },
    });
    const at = (path: string) => fetch(`http://127.0.0.1:${port}${path}`);

    const health = await at('/healthz');
    expect(health.status).to.equal(200);
    expect(await health.json()).to.deep.equal({ status: 'ok' });
    const ready = await at('/readyz');
    expect(ready.status).to.equal(200);
    expect(await ready.json()).to.deep.equal({ status: 'ready', checks: { documents: 'ok', keyValue: 'ok' } });
    const unknown = await at('/anything-else');
    expect(unknown.status).to.equal(404);
    expect(((await unknown.json()) as { code: string }).code).to.equal('route.not_found');
    const SUCCEEDED = 'webhook_delivery_attempts_total{outcome="succeeded"}';
    expect(seriesValue(await (await at('/metrics')).text(), SUCCEEDED)).to.equal(0);

    const created = await web.request('/api/users', { method: 'POST', json: { username: 'counted_by_the_worker' } });
    expect(created.status).to.equal(201);
    await eventually(() => receiver.requests('/counted').length === 1, 20_000);

    // The attempt is counted once its answer is recorded, just after the receiver answered.
    await eventually(async () => seriesValue(await (await at('/metrics')).text(), SUCCEEDED) === 1, 10_000);
    const scraped = await (await at('/metrics')).text();
    expect(seriesValue(scraped, 'webhook_delivery_attempt_duration_seconds_count{outcome="succeeded"}')).to.equal(1);
    const webScrape = await (await web.request('/metrics')).text();
    expect(seriesValue(webScrape, SUCCEEDED)).to.equal(0);
  });
});

describe('webhook settings', () => {
  it('refuse WEBHOOK_WORKER_IN_WEB=false unless MongoDB and Redis are shared with a worker', () => {
    expect(() => resolveSettings({ WEBHOOK_WORKER_IN_WEB: 'false' })).to.throw(/MONGODB_URI and REDIS_URL/);
    expect(() => resolveSettings({ WEBHOOK_WORKER_IN_WEB: 'false', REDIS_URL })).to.throw(/MONGODB_URI and REDIS_URL/);
    expect(
      resolveSettings({ WEBHOOK_WORKER_IN_WEB: 'false', REDIS_URL, MONGODB_URI: 'mongodb://db/x' })
        .WEBHOOK_WORKER_IN_WEB,
    ).to.equal(false);
  });

  it('give each instance on embedded documents a private queue, and share the named one otherwise', () => {
    const first = resolveSettings({}).webhookQueue;
    expect(first.private).to.equal(true);
    expect(first.name)
      .to.match(/^webhook-deliveries-[0-9a-f]{12}$/)
      .and.not.equal(resolveSettings({}).webhookQueue.name);
    expect(resolveSettings({ MONGODB_URI: 'mongodb://db/x' }).webhookQueue).to.deep.equal({
      name: 'webhook-deliveries',
      private: false,
    });
    expect(resolveSettings({ WEBHOOK_QUEUE_NAME: 'mine' }).webhookQueue).to.deep.equal({
      name: 'mine',
      private: false,
    });
    expect(() => resolveSettings({ WEBHOOK_QUEUE_NAME: 'a:b' })).to.throw(/WEBHOOK_QUEUE_NAME/);
  });

  it('default to a schedule spanning hours, a 24 h key grace period and a 1 h Retry-After cap', () => {
    const settings = resolveSettings({});
    expect(settings.WEBHOOK_RETRY_DELAYS_MS ?? DEFAULT_RETRY_DELAYS_MS).to.equal(DEFAULT_RETRY_DELAYS_MS);
    expect(settings.WEBHOOK_SIGNING_KEY_GRACE_SECONDS).to.equal(86_400);
    expect(settings.WEBHOOK_RETRY_AFTER_CAP_MS).to.equal(3_600_000);
    expect(resolveSettings({ WEBHOOK_RETRY_DELAYS_MS: '50, 100' }).WEBHOOK_RETRY_DELAYS_MS).to.deep.equal([50, 100]);
    expect(() => resolveSettings({ WEBHOOK_RETRY_DELAYS_MS: '5s' })).to.throw(/WEBHOOK_RETRY_DELAYS_MS/);
  });
});
