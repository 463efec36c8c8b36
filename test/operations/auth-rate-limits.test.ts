import { randomInt } from 'node:crypto';
import { expect } from 'chai';
import { clientCredentialsToken, startService, type RunningService } from '../support/service.ts';
import { createApplication, createUser } from '../support/fixtures.ts';

const REDIS_URL = 'redis://127.0.0.1:6379';
const LIMIT = 5;

/** Each case acts from its own client address (TRUST_PROXY is on), so counts never mix between cases or runs. */
const freshIp = () => `127.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

async function clientCredentials(running: RunningService, ip: string, authorization: string, path = '/oidc/token') {
  const body =
    path === '/oidc/token'
      ? new URLSearchParams({ grant_type: 'client_credentials' })
      : new URLSearchParams({ token: 'not-a-token' });
  const res = await fetch(`${running.baseUrl}${path}`, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': ip, authorization },
  });
  return {
    status: res.status,
    retryAfter: res.headers.get('retry-after'),
    body: (await res.json()) as Record<string, unknown>,
  };
}

async function management(running: RunningService, ip: string, token: string, path = '/api/applications') {
  const res = await fetch(`${running.baseUrl}${path}`, {
    headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': ip },
  });
  return {
    status: res.status,
    retryAfter: res.headers.get('retry-after'),
    body: (await res.json()) as Record<string, unknown>,
  };
}

/** A token of a new management client holding only the subject-token scope, so its count starts at zero. */
async function subjectTokenClient(running: RunningService): Promise<string> {
  const role = (await (
    await running.request('/api/roles', {
      method: 'POST',
      json: { name: `role-${randomInt(1e9)}`, description: 'subject tokens', type: 'MachineToMachine' },
    })
  ).json()) as { id: string };
  await running.request(`/api/roles/${role.id}/scopes`, {
    method: 'POST',
    json: { scopeIds: ['management-api-subject-tokens-create'] },
  });
  const app = await createApplication(running, { type: 'MachineToMachine' });
  await running.request(`/api/applications/${app.id}/roles`, { method: 'POST', json: { roleIds: [role.id] } });
  return clientCredentialsToken(
    running.baseUrl,
    app.id,
    app.secret!,
    `${running.baseUrl}/api`,
    'subject-tokens:create',
  );
}

function expectRetryAfter(value: string | null): void {
  expect(Number(value)).to.be.within(1, 60);
}

for (const backend of [
  { name: 'embedded counters', redisUrl: undefined },
  { name: 'Redis', redisUrl: REDIS_URL },
]) {
  describe(`failed-authentication rate limits (${backend.name})`, () => {
    let running: RunningService;
    let app: { id: string; secret: string };

    before(async () => {
      running = await startService({
        env: {
          REDIS_URL: backend.redisUrl,
          TRUST_PROXY: 'true',
          AUTH_FAILURE_RATE_LIMIT: String(LIMIT),
          SUBJECT_TOKEN_RATE_LIMIT: '3',
        },
      });
    });
    after(() => running.close());
    beforeEach(async () => {
      const created = await createApplication(running, { type: 'MachineToMachine' });
      app = { id: created.id, secret: created.secret! };
    });

    it('answers 429 with Retry-After once a client failed the limit, and then refuses even its correct secret', async () => {
      for (let i = 0; i < LIMIT; i += 1) {
        const failed = await clientCredentials(running, freshIp(), basic(app.id, 'wrong-secret'));
        expect(failed.status).to.equal(401);
        expect(failed.body.error).to.equal('invalid_client');
      }
      const limited = await clientCredentials(running, freshIp(), basic(app.id, 'wrong-secret'));
      expect(limited.status).to.equal(429);
      expect(limited.body.error).to.equal('temporarily_unavailable');
      expectRetryAfter(limited.retryAfter);
      const correct = await clientCredentials(running, freshIp(), basic(app.id, app.secret));
      expect(correct.status).to.equal(429);
      expectRetryAfter(correct.retryAfter);
    });

    it('counts per IP address: unknown clients from one address lock that address only', async () => {
      const ip = freshIp();
      for (let i = 0; i < LIMIT; i += 1) {
        expect((await clientCredentials(running, ip, basic(`nobody-${i}`, 'secret'))).status).to.equal(401);
      }
      expect((await clientCredentials(running, ip, basic('nobody-else', 'secret'))).status).to.equal(429);
      expect((await clientCredentials(running, ip, basic(app.id, app.secret))).status).to.equal(429);
      expect((await clientCredentials(running, freshIp(), basic(app.id, app.secret))).status).to.equal(200);
    });

    it('counts failed authentications at the introspection endpoint', async () => {
      const ip = freshIp();
      const path = '/oidc/token/introspection';
      for (let i = 0; i < LIMIT; i += 1)
        expect((await clientCredentials(running, ip, basic(app.id, 'bad'), path)).status).to.equal(401);
      const limited = await clientCredentials(running, ip, basic(app.id, 'bad'), path);
      expect(limited.status).to.equal(429);
      expectRetryAfter(limited.retryAfter);
    });

    it('never counts successes', async () => {
      const ip = freshIp();
      for (let i = 0; i < LIMIT * 4; i += 1)
        expect((await clientCredentials(running, ip, basic(app.id, app.secret))).status).to.equal(200);
      for (let i = 0; i < LIMIT; i += 1)
        expect((await clientCredentials(running, ip, basic(app.id, 'bad'))).status).to.equal(401);
      expect((await clientCredentials(running, ip, basic(app.id, 'bad'))).status).to.equal(429);
    });

    it('evaluates at most the limit of 100 concurrent failures as failures; the rest are 429', async () => {
      const ip = freshIp();
      const results = await Promise.all(
        Array.from({ length: 100 }, () => clientCredentials(running, ip, basic(app.id, 'bad'))),
      );
      const statuses = results.map((result) => result.status);
      const failures = statuses.filter((status) => status === 401).length;
      expect(statuses.filter((status) => status !== 401 && status !== 429)).to.deep.equal([]);
      expect(failures).to.be.within(1, LIMIT);
      expect(statuses.filter((status) => status === 429)).to.have.length(100 - failures);
    });

    it('limits failed management-API authentications with request.too_many_requests, then refuses a valid token', async () => {
      const ip = freshIp();
      for (let i = 0; i < LIMIT; i += 1) {
        const refused = await management(running, ip, 'not-a-jwt');
        expect(refused.status).to.equal(401);
        expect(refused.body.code).to.equal('auth.unauthorized');
      }
      const limited = await management(running, ip, 'not-a-jwt');
      expect(limited.status).to.equal(429);
      expect(limited.body.code).to.equal('request.too_many_requests');
      expectRetryAfter(limited.retryAfter);
      const token = await running.adminToken();
      expect((await management(running, ip, token)).status).to.equal(429);
      expect((await management(running, freshIp(), token)).status).to.equal(200);
    });

    it('limits subject-token creation per management client', async () => {
      const user = await createUser(running);
      const [first, second] = [await subjectTokenClient(running), await subjectTokenClient(running)];
      const create = (token: string) =>
        running.request('/api/subject-tokens', { method: 'POST', json: { userId: user.id }, token });
      for (let i = 0; i < 3; i += 1) expect((await create(first)).status).to.equal(201);
      const limited = await create(first);
      expect(limited.status).to.equal(429);
      expect(((await limited.json()) as { code: string }).code).to.equal('request.too_many_requests');
      expectRetryAfter(limited.headers.get('retry-after'));
      expect((await create(second)).status).to.equal(201);
    });
  });
}

describe('failed-authentication limits with the key-value store down', () => {
  let running: RunningService;
  before(async () => {
    // Nothing listens on port 1: every Redis command fails once its retries are used up.
    running = await startService({ env: { REDIS_URL: 'redis://127.0.0.1:1', AUTH_FAILURE_RATE_LIMIT: '30' } });
  });
  after(() => running.close());

  it('answers 503 at the token endpoint and on the management API, never a 500', async () => {
    const token = await clientCredentials(running, '127.0.0.1', basic('some-client', 'some-secret'));
    expect(token.status).to.equal(503);
    expect(token.body.error).to.equal('temporarily_unavailable');
    const api = await management(running, '127.0.0.1', 'not-a-jwt');
    expect(api.status).to.equal(503);
    expect(api.body.code).to.equal('service.dependency_unavailable');
  });
});
