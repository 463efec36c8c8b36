import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Router from '@koa/router';
import { expect } from 'chai';
import Koa from 'koa';
import { z } from 'zod';
import { declare, RouteRegistry, type ApiRouterDeps } from '../../lib/http/api.ts';
import { jsonErrorMiddleware } from '../../lib/http/errors.ts';
import { capturingLogger, ERROR, type LogLine } from '../support/logs.ts';

/** `declare()` on a bare Koa app: what a handler returns reaches the client only through its schema. */
describe('response contracts of declared routes', () => {
  const account = z.object({ id: z.string(), name: z.string(), tags: z.array(z.object({ label: z.string() })) });
  let server: Server;
  let baseUrl: string;
  let lines: LogLine[];
  let raw: string[];

  before(async () => {
    const capture = capturingLogger();
    ({ lines, raw } = capture);
    const router = new Router({ prefix: '/api' });
    const api: ApiRouterDeps = {
      router,
      prefix: '/api',
      registry: new RouteRegistry(),
      requireScope: () => async (_ctx, next) => next(),
    };
    declare(api, {
      method: 'get',
      path: '/leaky',
      tag: 'Test',
      summary: 'A handler that forgets to hide secrets',
      scope: null,
      response: account,
      handler: async () => ({
        id: 'a1',
        name: 'Ada',
        passwordDigest: 'scrypt$leaked',
        tags: [{ label: 'x', internalNote: 'hidden-note' }],
      }),
    });
    declare(api, {
      method: 'get',
      path: '/broken',
      tag: 'Test',
      summary: 'A handler whose result breaks its contract',
      scope: null,
      response: account,
      handler: async () => ({ id: 42, name: 'Ada', tags: [], apiToken: 'tok_do_not_log' }),
    });
    declare(api, {
      method: 'get',
      path: '/listed',
      tag: 'Test',
      summary: 'A page of a list',
      scope: null,
      response: z.array(account),
      handler: async ({ paged }) => paged([{ id: 'a1', name: 'Ada', tags: [], secret: 's3' }]),
    });
    const app = new Koa();
    app.use(jsonErrorMiddleware(capture.logger));
    app.use(router.routes());
    server = createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('sends the parsed value: fields the schema does not name are dropped, at every depth', async () => {
    const res = await fetch(`${baseUrl}/api/leaky`);
    expect(res.status).to.equal(200);
    const text = await res.text();
    expect(JSON.parse(text)).to.deep.equal({ id: 'a1', name: 'Ada', tags: [{ label: 'x' }] });
    expect(text).not.to.include('scrypt').and.not.to.include('hidden-note');

    const list = await fetch(`${baseUrl}/api/listed`);
    expect(list.headers.get('total-number')).to.equal('1');
    expect(await list.json()).to.deep.equal([{ id: 'a1', name: 'Ada', tags: [] }]);
  });

  it('fails loudly on a result of the wrong type: 500 service.internal_error, logged at error without the body', async () => {
    const before = lines.length;
    const res = await fetch(`${baseUrl}/api/broken`);
    expect(res.status).to.equal(500);
    expect(await res.json()).to.deep.equal({ code: 'service.internal_error', message: 'internal error' });
    const logged = lines.slice(before).filter((line) => line.level === ERROR);
    expect(logged).to.have.length(1);
    expect(logged[0]!.err?.message).to.include('GET /api/broken').and.include('id');
    expect(raw.join('')).not.to.include('tok_do_not_log');
  });

  it('refuses to declare a route that answers a body without a response schema', () => {
    const router = new Router();
    const api: ApiRouterDeps = {
      router,
      prefix: '',
      registry: new RouteRegistry(),
      requireScope: () => async (_ctx, next) => next(),
    };
    expect(() =>
      declare(api, {
        method: 'get',
        path: '/unchecked',
        tag: 'Test',
        summary: 'No contract',
        scope: null,
        handler: async () => ({ secret: 1 }),
      }),
    ).to.throw(/declares no response schema/);
  });
});
