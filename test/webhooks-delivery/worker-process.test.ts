import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { expect } from 'chai';
import { resolveSettings } from '../../lib/settings.ts';
import { DEFAULT_RETRY_DELAYS_MS } from '../../lib/webhooks/retry-policy.ts';
import { REDIS_URL, removeQueue, uniqueQueueName } from './support/hooks.ts';
import { eventually } from './support/receiver.ts';

const ROOT = new URL('../..', import.meta.url);

/** Runs a script with a clean environment and collects its output. */
function run(script: string, env: Record<string, string>) {
  const child = spawn(process.execPath, [script], {
    cwd: ROOT, env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'],
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
      id: 'seeded', name: 'seeded', event: null, events: ['User.Created'], config: { url: 'http://127.0.0.1:9/' },
      enabled: true, signingKey: 'whsec_AAAA', retiredSigningKeys: [], createdAt: 0, updatedAt: 0,
    };
    const script = process.env.MONGODB_URI ? 'bin/worker.ts' : 'test/webhooks-delivery/support/seeded-worker.ts';
    const { child, output } = run(script, {
      REDIS_URL, WEBHOOK_QUEUE_NAME: queueName, LOG_LEVEL: 'info', SEEDED_HOOK: JSON.stringify(hook),
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

describe('webhook settings', () => {
  it('refuse WEBHOOK_WORKER_IN_WEB=false unless MongoDB and Redis are shared with a worker', () => {
    expect(() => resolveSettings({ WEBHOOK_WORKER_IN_WEB: 'false' })).to.throw(/MONGODB_URI and REDIS_URL/);
    expect(() => resolveSettings({ WEBHOOK_WORKER_IN_WEB: 'false', REDIS_URL })).to.throw(/MONGODB_URI and REDIS_URL/);
    expect(resolveSettings({ WEBHOOK_WORKER_IN_WEB: 'false', REDIS_URL, MONGODB_URI: 'mongodb://db/x' }).WEBHOOK_WORKER_IN_WEB)
      .to.equal(false);
  });

  it('give each instance on embedded documents a private queue, and share the named one otherwise', () => {
    const first = resolveSettings({}).webhookQueue;
    expect(first.private).to.equal(true);
    expect(first.name).to.match(/^webhook-deliveries-[0-9a-f]{12}$/).and.not.equal(resolveSettings({}).webhookQueue.name);
    expect(resolveSettings({ MONGODB_URI: 'mongodb://db/x' }).webhookQueue).to.deep.equal({ name: 'webhook-deliveries', private: false });
    expect(resolveSettings({ WEBHOOK_QUEUE_NAME: 'mine' }).webhookQueue).to.deep.equal({ name: 'mine', private: false });
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
