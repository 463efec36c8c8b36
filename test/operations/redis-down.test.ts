import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { startService, type RunningService } from '../support/service.ts';
import { createApplication, createResource, createUser, tokenRequest } from '../support/fixtures.ts';
import { eventually } from '../support/wait.ts';
import { PrivateRedis } from '../support/redis-server.ts';

const FAIL_FAST_MS = 1000;
/** How long the outage lasts: long enough for ioredis to go through several reconnection attempts. */
const OUTAGE_MS = 4000;
const ROUND_GAP_MS = 200;

const hasRedisServer = spawnSync('redis-server', ['--version']).status === 0;

describe('Redis going down and coming back', () => {
  let redis: PrivateRedis | undefined;
  let running: RunningService;
  let user: { id: string };
  let app: { id: string; secret?: string };

  before(async function () {
    if (!hasRedisServer) this.skip();
    redis = await PrivateRedis.start();
    running = await startService({ env: { REDIS_URL: redis.url } });
    expect(running.service.core.kv.kind).to.equal('redis');
    user = await createUser(running);
    await createResource(running, 'https://redis-down.example.com', ['read']);
    app = await createApplication(running, { type: 'Traditional', customClientMetadata: { allowTokenExchange: true } });
    // A hook subscribed to user creation: its events must not make the request wait for Redis either.
    const hook = await running.request('/api/hooks', {
      method: 'POST',
      json: { name: 'down', events: ['User.Created'], config: { url: 'http://127.0.0.1:9/hook' } },
    });
    expect(hook.status).to.equal(201);
  });
  after(async () => {
    await running?.close();
    await redis?.stop();
  });

  async function timed(
    request: () => Promise<Response>,
  ): Promise<{ status: number; ms: number; body: Record<string, unknown> }> {
    const started = performance.now();
    const res = await request();
    const body = (await res.json()) as Record<string, unknown>;
    return { status: res.status, ms: performance.now() - started, body };
  }

  const subjectToken = () => running.request('/api/subject-tokens', { method: 'POST', json: { userId: user.id } });

  it(`answers within ${FAIL_FAST_MS} ms on every request while it is down (503 when Redis is needed), and serves again once it is back`, async () => {
    await running.adminToken();
    expect((await subjectToken()).status).to.equal(201);
    await redis!.kill();

    const outageEnds = performance.now() + OUTAGE_MS;
    let rounds = 0;
    while (performance.now() < outageEnds && rounds < 100) {
      rounds += 1;
      const answers = {
        subjectToken: await timed(subjectToken),
        createUser: await timed(() =>
          running.request('/api/users', { method: 'POST', json: { username: `down_${rounds}_${redis!.port}` } }),
        ),
        exchange: await timed(async () => {
          const { status, body } = await tokenRequest(
            running,
            {
              grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
              subject_token: 'sub_tk_x',
              subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
            },
            app,
          );
          return Response.json(body, { status });
        }),
        readiness: await timed(() => fetch(`${running.baseUrl}/readyz`)),
      };
      // A data change does not need Redis: it commits with its events in the outbox, which forwards them later.
      const expected: Record<keyof typeof answers, number> = {
        subjectToken: 503,
        createUser: 201,
        exchange: 503,
        readiness: 503,
      };
      for (const [name, answer] of Object.entries(answers)) {
        expect(answer.status, `${name} in round ${rounds}`).to.equal(expected[name as keyof typeof answers]);
        expect(answer.ms, `${name} in round ${rounds} took ${Math.round(answer.ms)} ms`).to.be.below(FAIL_FAST_MS);
      }
      expect(answers.subjectToken.body.code).to.equal('service.dependency_unavailable');
      expect(answers.exchange.body.error).to.equal('temporarily_unavailable');
      await new Promise((resolve) => setTimeout(resolve, ROUND_GAP_MS));
    }
    expect(rounds).to.be.greaterThan(5);

    await redis!.restart();
    const back = performance.now();
    await eventually(async () => (await subjectToken()).status === 201, {
      timeoutMs: 5000,
      what: 'a subject token after Redis came back',
    });
    expect(performance.now() - back, 'recovery time').to.be.below(3000);
    expect((await fetch(`${running.baseUrl}/readyz`)).status).to.equal(200);
    const created = await running.request('/api/users', { method: 'POST', json: { username: `back_${redis!.port}` } });
    expect(created.status).to.equal(201);
  });
});
