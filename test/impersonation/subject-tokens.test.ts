import { createHash } from 'node:crypto';
import Router from '@koa/router';
import { expect } from 'chai';
import { RouteRegistry, type ApiRouterDeps } from '../../lib/http/api.ts';
import { MANAGEMENT_EVENTS } from '../../lib/events/management-events.ts';
import { managementRoutes } from '../../routes/index.ts';
import { impersonationRoutes } from '../../routes/impersonation/index.ts';
import { startService, clientCredentialsToken, type RunningService } from '../support/service.ts';
import { createApplication, createUser } from '../support/fixtures.ts';

describe('POST /api/subject-tokens', () => {
  let running: RunningService;
  before(async () => {
    running = await startService();
  });
  after(() => running.close());

  it('creates an opaque, prefixed one-time token with its lifetime, stored only as a digest', async () => {
    const user = await createUser(running);
    const res = await running.request('/api/subject-tokens', {
      method: 'POST',
      json: { userId: user.id, context: { a: 1 } },
    });
    expect(res.status).to.equal(201);
    const body = (await res.json()) as { subjectToken: string; expiresIn: number };
    expect(body.expiresIn).to.equal(600);
    expect(body.subjectToken).to.match(/^sub_tk_[A-Za-z0-9_-]{43}$/);
    const kv = running.service.core.kv;
    expect(await kv.get(`subject-token:${body.subjectToken}`)).to.equal(null);
    const stored = await kv.get(`subject-token:${createHash('sha256').update(body.subjectToken).digest('hex')}`);
    expect(stored, 'stored under its digest').to.be.a('string');
    expect(stored).not.to.include(body.subjectToken);
    expect(JSON.parse(stored!)).to.include({ userId: user.id, createdBy: 'test-admin' });
    expect(await kv.ttl(`subject-token:${createHash('sha256').update(body.subjectToken).digest('hex')}`)).to.be.within(
      1,
      600_000,
    );
  });

  it('answers 404 for an unknown user, 422 for a suspended one, 400 for bad input', async () => {
    const missing = await running.request('/api/subject-tokens', { method: 'POST', json: { userId: 'nobody' } });
    expect(missing.status).to.equal(404);
    expect(((await missing.json()) as { code: string }).code).to.equal('entity.not_exists_with_id');
    const suspended = await createUser(running, [], { isSuspended: true });
    const refused = await running.request('/api/subject-tokens', { method: 'POST', json: { userId: suspended.id } });
    expect(refused.status).to.equal(422);
    const user = await createUser(running);
    for (const json of [
      {},
      { userId: 5 },
      { userId: user.id, context: 'x' },
      { userId: user.id, extra: 1 },
      { userId: user.id, context: { blob: 'x'.repeat(17 * 1024) } },
    ]) {
      const res = await running.request('/api/subject-tokens', { method: 'POST', json });
      expect(res.status, JSON.stringify(json).slice(0, 60)).to.equal(400);
      expect(((await res.json()) as { code: string }).code).to.equal('guard.invalid_input');
    }
  });

  it('is allowed by the dedicated subject-tokens:create scope, which allows nothing else', async () => {
    const app = await createApplication(running, { type: 'MachineToMachine' });
    const role = (await (
      await running.request('/api/roles', {
        method: 'POST',
        json: { name: 'impersonators', type: 'MachineToMachine', scopeIds: ['management-api-subject-tokens-create'] },
      })
    ).json()) as { id: string };
    await running.request(`/api/applications/${app.id}/roles`, { method: 'POST', json: { roleIds: [role.id] } });
    const token = await clientCredentialsToken(
      running.baseUrl,
      app.id,
      app.secret!,
      `${running.baseUrl}/api`,
      'subject-tokens:create',
    );
    const user = await createUser(running);
    const ok = await running.request('/api/subject-tokens', { method: 'POST', json: { userId: user.id }, token });
    expect(ok.status).to.equal(201);
    expect((await running.request('/api/impersonation-logs', { token })).status).to.equal(403);
    expect((await running.request('/api/users', { token })).status).to.be.oneOf([403, 404]);
  });

  it('runs without a transaction only on routes that publish no events', () => {
    const api: ApiRouterDeps = {
      router: new Router({ prefix: '/api' }),
      prefix: '/api',
      registry: new RouteRegistry(),
      requireScope: () => async (_ctx, next) => next(),
    };
    managementRoutes(api, running.service.core);
    impersonationRoutes(api, running.service.core);
    const untransacted = api.registry.routes
      .filter((route) => route.transaction === false)
      .map((route) => `${route.method.toUpperCase()} ${route.path.slice('/api'.length)}`);
    expect(untransacted).to.deep.equal(['POST /subject-tokens']);
    for (const route of untransacted) expect(MANAGEMENT_EVENTS, route).not.to.have.property(route);
  });
});
