import type { AddressInfo } from 'node:net';
import Router from '@koa/router';
import { expect } from 'chai';
import Koa from 'koa';
import { EventBus, type IdentityEvent } from '../../../lib/events/bus.ts';
import { createOperationEvents } from '../../../lib/events/operation.ts';
import { routeEventsMiddleware } from '../../../lib/events/route-events.ts';
import { jsonErrorMiddleware } from '../../../lib/http/errors.ts';
import { capturingLogger, ERROR } from '../../support/logs.ts';

const ROLE = { id: 'r1', name: 'admin', description: 'all', type: 'User', isDefault: false, createdAt: 1 } as const;

/**
 * The route → event table is a contract: a route whose libraries state an event its row does not list fails, the
 * way a response that breaks its schema does, and publishes nothing.
 */
describe('route events: the documented table is enforced', () => {
  let server: ReturnType<Koa['listen']>;
  let base: string;
  const published: IdentityEvent[] = [];
  const { logger, lines } = capturingLogger();

  before(async () => {
    const bus = new EventBus();
    bus.subscribe(async (events) => {
      published.push(...events);
    });
    const operations = createOperationEvents();
    const router = new Router({ prefix: '/api' });
    const changeRole = (ctx: Koa.Context) => {
      operations.emit('Role.Data.Updated', { data: ROLE });
      ctx.body = ROLE;
    };
    router.patch('/roles/:id', changeRole);
    router.post('/roles/:id/copies', changeRole);
    const app = new Koa();
    app.use(jsonErrorMiddleware(logger));
    app.use(
      routeEventsMiddleware({
        bus,
        prefix: '/api',
        operations,
        documented: { 'PATCH /roles/:id': [{ event: 'Role.Data.Updated' }], 'POST /roles/:id/copies': [] },
      }),
    );
    app.use(router.routes());
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
  });
  after(() => server.close());
  beforeEach(() => {
    published.length = 0;
    lines.length = 0;
  });

  it('publishes what the route’s row lists', async () => {
    const res = await fetch(`${base}/roles/r1`, { method: 'PATCH' });
    expect(res.status).to.equal(200);
    expect(published.map((event) => event.event)).to.deep.equal(['Role.Data.Updated']);
    expect(published[0]).to.include({ matchedRoute: '/roles/:id', method: 'PATCH' });
  });

  it('fails a route that states an event its row does not list, publishing nothing and logging the bug', async () => {
    const res = await fetch(`${base}/roles/r1/copies`, { method: 'POST' });
    expect(res.status).to.equal(500);
    expect(((await res.json()) as { code: string }).code).to.equal('service.internal_error');
    expect(published).to.deep.equal([]);
    const logged = lines.filter((line) => line.level === ERROR).map((line) => line.err?.message);
    expect(logged).to.deep.equal([
      'POST /roles/:id/copies published Role.Data.Updated, which its row of the route → event table does not list',
    ]);
  });
});
