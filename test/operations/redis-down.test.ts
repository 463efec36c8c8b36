import { expect } from 'chai';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { connect, createServer } from 'node:net';
import { startService, type RunningService } from '../support/service.ts';
import { createApplication, createResource, createUser, tokenRequest } from '../support/fixtures.ts';
import { eventually } from '../support/wait.ts';

const FAIL_FAST_MS = 1000;
/** How long the outage lasts: long enough for ioredis to go through several reconnection attempts. */
const OUTAGE_MS = 4000;
const ROUND_GAP_MS = 200;

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.setTimeout(500);
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => {
      socket.destroy();
      resolve(data.toString().startsWith('+PONG'));
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

/** A private, non-persistent redis-server on a loopback port; stopped by its pid. */
async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  await eventually(() => answersPing(port), { timeoutMs: 5000, what: `redis-server on port ${port}` });
  return child;
}

async function stopRedis(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  process.kill(child.pid!, 'SIGKILL');
  await exited;
}

const hasRedisServer = spawnSync('redis-server', ['--version']).status === 0;

describe('Redis going down and coming back', function () {
  let port: number;
  let redis: ChildProcess;
  let running: RunningService;
  let user: { id: string };
  let app: { id: string; secret?: string };

  before(async function () {
    if (!hasRedisServer) this.skip();
    port = await freePort();
    redis = await startRedis(port);
    running = await startService({ env: { REDIS_URL: `redis://127.0.0.1:${port}` } });
    expect(running.service.core.kv.kind).to.equal('redis');
    user = await createUser(running);
    await createResource(running, 'https://redis-down.example.com', ['read']);
    app = await createApplication(running, { type: 'Traditional', customClientMetadata: { allowTokenExchange: true } });
    // A hook makes user creation enqueue a delivery, so the queue's Redis commands are in the request too.
    const hook = await running.request('/api/hooks', {
      method: 'POST', json: { name: 'down', events: ['User.Created'], config: { url: 'http://127.0.0.1:9/hook' } },
    });
    expect(hook.status).to.equal(201);
  });
  after(async () => {
    await running?.close();
    if (redis) await stopRedis(redis);
  });

  async function timed(request: () => Promise<Response>): Promise<{ status: number; ms: number; body: Record<string, unknown> }> {
    const started = performance.now();
    const res = await request();
    const body = await res.json() as Record<string, unknown>;
    return { status: res.status, ms: performance.now() - started, body };
  }

  const subjectToken = () => running.request('/api/subject-tokens', { method: 'POST', json: { userId: user.id } });

  it(`answers 503 within ${FAIL_FAST_MS} ms on every request while it is down, and serves again once it is back`, async () => {
    await running.adminToken();
    expect((await subjectToken()).status).to.equal(201);
    await stopRedis(redis);

    const outageEnds = performance.now() + OUTAGE_MS;
    let rounds = 0;
    while (performance.now() < outageEnds && rounds < 100) {
      rounds += 1;
      const answers = {
        subjectToken: await timed(subjectToken),
        createUser: await timed(() => running.request('/api/users', { method: 'POST', json: { username: `down_${rounds}_${port}` } })),
        exchange: await timed(async () => {
          const { status, body } = await tokenRequest(running, {
            grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange', subject_token: 'sub_tk_x',
            subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
          }, app);
          return Response.json(body, { status });
        }),
        readiness: await timed(() => fetch(`${running.baseUrl}/readyz`)),
      };
      for (const [name, answer] of Object.entries(answers)) {
        expect(answer.status, `${name} in round ${rounds}`).to.equal(503);
        expect(answer.ms, `${name} in round ${rounds} took ${Math.round(answer.ms)} ms`).to.be.below(FAIL_FAST_MS);
      }
      expect(answers.subjectToken.body.code).to.equal('service.dependency_unavailable');
      expect(answers.exchange.body.error).to.equal('temporarily_unavailable');
      await new Promise((resolve) => setTimeout(resolve, ROUND_GAP_MS));
    }
    expect(rounds).to.be.greaterThan(5);

    redis = await startRedis(port);
    const back = performance.now();
    await eventually(async () => (await subjectToken()).status === 201, { timeoutMs: 5000, what: 'a subject token after Redis came back' });
    expect(performance.now() - back, 'recovery time').to.be.below(3000);
    expect((await fetch(`${running.baseUrl}/readyz`)).status).to.equal(200);
    const created = await running.request('/api/users', { method: 'POST', json: { username: `back_${port}` } });
    expect(created.status).to.equal(201);
  });
});
