import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startService, type RunningService } from '../support/service.ts';
import { capturingLogger } from '../support/logs.ts';
import { freePort, serviceFreeEnv } from '../support/processes.ts';
import { eventually } from '../support/wait.ts';
import { PrivateRedis, redisServerInstalled } from '../support/redis-server.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const LIMIT_MS = 30_000;
/** Long enough for every Redis connection to go through several reconnection attempts (at most a second apart). */
const OUTAGE_MS = 4000;

interface Started {
  child: ChildProcess;
  output: { stdout: string; stderr: string };
  exited: Promise<number | null>;
}

/** Starts an entry point with a clean environment plus `env`; killed past LIMIT_MS. */
function start(script: string, env: Record<string, string>): Started {
  // What is kept locally is not what these tests look at: in memory, no data directory is written (with both MongoDB
  // and Redis nothing is local, and STORAGE is left unset).
  const storage = env.MONGODB_URI && env.REDIS_URL ? '' : 'memory';
  const child = spawn(process.execPath, [script], {
    cwd: root,
    env: { ...serviceFreeEnv(), LOG_LEVEL: 'info', STORAGE: storage, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = { stdout: '', stderr: '' };
  child.stdout!.on('data', (chunk) => (output.stdout += chunk));
  child.stderr!.on('data', (chunk) => (output.stderr += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), LIMIT_MS);
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    }),
  );
  return { child, output, exited };
}

/** The JSON lines a process logged (stdout also carries the printed credentials, which are not JSON). */
function logLines(stdout: string): Array<Record<string, unknown> & { level: number; msg: string }> {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line));
}

describe('stores that do not answer at start', () => {
  let running: Started | undefined;
  afterEach(() => {
    if (running && running.child.exitCode === null) running.child.kill('SIGKILL');
    running = undefined;
  });

  for (const [script, name, extra] of [
    ['bin/server.ts', 'npm start', {}],
    // The worker needs MongoDB too; Redis is opened first, so that one is named.
    ['bin/worker.ts', 'npm run worker', { MONGODB_URI: 'mongodb://127.0.0.1:1/never-contacted' }],
  ] as const) {
    it(`${name}: a Redis nothing answers at stops the start with one line and exit code 1, never "ready"`, async () => {
      const port = await freePort();
      running = start(script, {
        ...extra,
        REDIS_URL: `redis://:secret-password@127.0.0.1:${port}/0`,
        PORT: String(await freePort()),
      });
      expect(await running.exited).to.equal(1);
      expect(running.output.stderr.trim().split('\n')).to.deep.equal([
        `cannot start: Redis at 127.0.0.1:${port} did not answer within 5 s (connect ECONNREFUSED 127.0.0.1:${port}): start it, or correct REDIS_URL`,
      ]);
      // Not ready, no credentials, no outage warning (it never was up) and nothing that names the password.
      expect(running.output.stdout).not.to.match(/ready|ADMIN_CLIENT_SECRET|setup#token|unavailable|secret-password/);
      expect(running.output.stdout + running.output.stderr).not.to.match(/^\s+at /m);
    });
  }

  it('npm start: a MongoDB nothing answers at stops the start with one line and exit code 1', async () => {
    const port = await freePort();
    running = start('bin/server.ts', {
      MONGODB_URI: `mongodb://admin:secret-password@127.0.0.1:${port}/identity?serverSelectionTimeoutMS=300`,
      PORT: String(await freePort()),
    });
    expect(await running.exited).to.equal(1);
    expect(running.output.stderr.trim().split('\n')).to.deep.equal([
      `cannot start: MongoDB at 127.0.0.1:${port} is unreachable (connect ECONNREFUSED 127.0.0.1:${port}): start it, or correct MONGODB_URI`,
    ]);
    expect(running.output.stdout).not.to.match(/ready|ADMIN_CLIENT_SECRET|secret-password/);
  });

  it('refuses URL-shaped settings that are not URLs of their kind, every one listed, exit code 2', async () => {
    running = start('bin/server.ts', {
      REDIS_URL: 'notaurl',
      MONGODB_URI: 'mongodb://127.0.0.1:27017',
      BASE_URL: 'localhost:3000',
      PORT: String(await freePort()),
    });
    expect(await running.exited).to.equal(2);
    const problems = running.output.stderr.trim().split('\n');
    expect(problems[0]).to.equal('invalid configuration:');
    expect(problems.slice(1).sort()).to.deep.equal([
      '  BASE_URL: an http:// or https:// URL',
      '  MONGODB_URI: a mongodb:// or mongodb+srv:// connection string naming a database (mongodb://host:27017/identity?replicaSet=rs0)',
      '  REDIS_URL: a redis:// or rediss:// URL naming a host (redis://host:6379)',
    ]);
    expect(running.output.stdout).to.equal('');
  });
});

describe('Redis going down after the start: one warning per outage, no stack trace', function () {
  this.timeout(60_000);
  let redis: PrivateRedis | undefined;
  let server: Started | undefined;
  before(function () {
    if (!redisServerInstalled()) this.skip();
  });
  after(async () => {
    if (server && server.child.exitCode === null) server.child.kill('SIGKILL');
    await redis?.stop();
  });

  it('npm start: ready once Redis answers; an outage is one warning and one recovery line, /readyz 503 meanwhile', async () => {
    redis = await PrivateRedis.start();
    const port = await freePort();
    server = start('bin/server.ts', { REDIS_URL: redis.url, PORT: String(port) });
    const base = `http://127.0.0.1:${port}`;
    await eventually(() => /"msg":"ready/.test(server!.output.stdout), { timeoutMs: 20_000, what: 'the ready line' });
    expect((await fetch(`${base}/readyz`)).status).to.equal(200);

    await redis.kill();
    await eventually(async () => (await fetch(`${base}/readyz`)).status === 503, { what: '/readyz 503' });
    const outageEnds = performance.now() + OUTAGE_MS;
    for (let round = 0; round < 100 && performance.now() < outageEnds; round += 1) {
      expect((await fetch(`${base}/readyz`)).status).to.equal(503);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await redis.restart();
    await eventually(async () => (await fetch(`${base}/readyz`)).status === 200, { what: '/readyz 200 again' });
    await eventually(() => /redis is available again/.test(server!.output.stdout), { what: 'the recovery line' });
    server.child.kill('SIGTERM');
    expect(await server.exited).to.equal(0);

    const lines = logLines(server.output.stdout);
    const ready = lines.findIndex((line) => line.msg.startsWith('ready'));
    const after = lines.slice(ready + 1).filter((line) => line.msg !== 'request');
    expect(after.map((line) => [line.level, line.msg])).to.deep.equal([
      [40, 'redis is unavailable: commands fail until it is back'],
      [30, 'redis is available again'],
      [30, 'shutting down'],
    ]);
    expect(after[0]).to.include({ store: 'redis', address: `127.0.0.1:${redis.port}` });
    expect(after[0]!.reason).to.be.a('string');
    expect(server.output.stdout + server.output.stderr).not.to.match(/"stack"|^\s+at /m);
  });
});

describe('a library instance whose Redis does not answer', () => {
  let running: RunningService;
  const logs = capturingLogger();
  before(async () => {
    running = await startService({ env: { REDIS_URL: `redis://127.0.0.1:${await freePort()}` }, logger: logs.logger });
  });
  after(() => running.close());

  it('starts and reports not ready, with one warning for the whole outage and no stack trace', async () => {
    const outageEnds = performance.now() + OUTAGE_MS;
    for (let round = 0; round < 100 && performance.now() < outageEnds; round += 1) {
      const ready = await fetch(`${running.baseUrl}/readyz`);
      expect(ready.status).to.equal(503);
      expect(await ready.json()).to.deep.include({ status: 'unavailable' });
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    // The outage's one line, and what the start could not do because of it (no console setup link without Redis).
    expect(
      logs.lines
        .filter((line) => line.level >= 40)
        .map((line) => line.msg)
        .sort(),
    ).to.deep.equal([
      'GET /metrics is open to anyone who reaches this service: set METRICS_TOKEN, or keep it off the public network',
      'messages without a configured connector are only logged (development connector)',
      'no console setup link: the key-value store is unavailable; restart once it is back',
      'redis is unavailable: commands fail until it is back',
    ]);
    expect(logs.raw.join('')).not.to.include('"stack"');
  });
});
