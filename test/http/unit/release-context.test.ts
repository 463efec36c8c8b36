import { request as httpRequest, type ClientRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import Koa, { type Context } from 'koa';
import mount from 'koa-mount';
import { releaseContexts } from '../../../lib/http/release-context.ts';
import { tokenRequest, createApplication, createResource, createRole } from '../../support/fixtures.ts';
import { startService } from '../../support/service.ts';

/** Resolves once the response of `ctx` has closed and the turn after its `close` listeners has run. */
function afterRelease(ctx: Context): Promise<void> {
  return new Promise((resolve) => {
    // Registered before the release's own listener, so two turns later the release has run.
    const later = () => setImmediate(() => setImmediate(resolve));
    if (ctx.res.closed) later();
    else ctx.res.once('close', later);
  });
}

async function listen(app: Koa) {
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}` };
}

/**
 * Serves one request with `handler` on an application that clears its contexts, and returns the response's status
 * and text with the handler's context once it has been let go.
 */
async function servedOnce(path: string, handler: (ctx: Context) => void) {
  const app = new Koa();
  app.use(releaseContexts(app));
  let seen: Context | undefined;
  let ready!: Promise<void>;
  app.use((ctx) => {
    seen = ctx;
    ready = afterRelease(ctx);
    handler(ctx);
  });
  const { server, url } = await listen(app);
  try {
    const res = await fetch(`${url}${path}`);
    const answer = { status: res.status, text: await res.text() };
    await ready;
    return { ...answer, ctx: seen! };
  } finally {
    server.close();
  }
}

describe('a request context is let go once the request is over', () => {
  it('clears the context after the response, not before: the handler and the response see it whole', async () => {
    const { status, text, ctx } = await servedOnce('/things?x=1', (ctx) => {
      ctx.state.user = 'someone';
      ctx.body = { method: ctx.method, path: ctx.path };
    });
    expect(status).to.equal(200);
    expect(JSON.parse(text)).to.deep.equal({ method: 'GET', path: '/things' });
    expect(ctx.req).to.equal(undefined);
    expect(ctx.res).to.equal(undefined);
    expect(ctx.request).to.equal(undefined);
    expect(ctx.state).to.equal(undefined);
  });

  it('waits for a chain still running when the client goes away', async () => {
    const app = new Koa();
    app.use(releaseContexts(app));
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    let reached!: () => void;
    const arrived = new Promise<void>((resolve) => {
      reached = resolve;
    });
    let closed!: Promise<void>;
    let finished!: (read: string) => void;
    const readAfterGate = new Promise<string>((resolve) => {
      finished = resolve;
    });
    let seen: Context | undefined;
    app.use(async (ctx, next) => {
      ctx.state.marker = 'kept';
      await next();
    });
    app.use(async (ctx) => {
      seen = ctx;
      closed = new Promise((resolve) => ctx.res.once('close', () => setImmediate(() => setImmediate(resolve))));
      reached();
      await gate;
      // The connection is gone, the handler is not: its context is still whole.
      finished(`${ctx.method} ${ctx.request.path} ${String(ctx.state.marker)}`);
      ctx.body = 'late';
    });
    const { server, url } = await listen(app);
    try {
      let req!: ClientRequest;
      const sent = new Promise<void>((resolve) => {
        req = httpRequest(`${url}/slow`, { method: 'POST', headers: { 'content-type': 'text/plain' } });
        req.on('error', () => resolve());
        req.end('body');
      });
      await arrived;
      req.destroy();
      await sent;
      await closed;
      expect(seen!.req, 'not cleared while the handler still runs').not.to.equal(undefined);
      open();
      expect(await readAfterGate).to.equal('POST /slow kept');
      await afterRelease(seen!);
      expect(seen!.req).to.equal(undefined);
      expect(seen!.state).to.equal(undefined);
    } finally {
      server.close();
    }
  });

  it('clears a context whose provider getter throws, without an error escaping', async () => {
    const { text, ctx } = await servedOnce('/', (ctx) => {
      Object.defineProperty(ctx, 'oidc', {
        get() {
          throw new Error('no provider context here');
        },
      });
      ctx.body = 'ok';
    });
    expect(text).to.equal('ok');
    expect(ctx.req).to.equal(undefined);
  });

  it("leaves a host's own context whole when the host mounts the application's middleware", async () => {
    const inner = new Koa();
    inner.use(releaseContexts(inner));
    inner.use((ctx) => {
      ctx.body = 'inner';
    });
    const host = new Koa();
    let seen: Context | undefined;
    let ready!: Promise<void>;
    host.use(async (ctx, next) => {
      seen = ctx;
      ready = afterRelease(ctx);
      await next();
    });
    host.use(mount('/inner', inner));
    const { server, url } = await listen(host);
    try {
      const res = await fetch(`${url}/inner/x`);
      expect(await res.text()).to.equal('inner');
      await ready;
      expect(seen!.req).not.to.equal(undefined);
      expect(seen!.state).to.deep.equal({});
    } finally {
      server.close();
    }
  });

  it("clears the provider's context of a token request once its token is sent", async () => {
    const running = await startService();
    try {
      const resource = 'https://release.example.com';
      const api = await createResource(running, resource, ['read']);
      const role = await createRole(running, [api.scopes.read!.id], 'MachineToMachine');
      const app = await createApplication(running, { type: 'MachineToMachine' });
      await running.request(`/api/applications/${app.id}/roles`, { method: 'POST', json: { roleIds: [role.id] } });
      let seen: { oidc: Record<string, unknown>; ctx: Context } | undefined;
      let ready!: Promise<void>;
      running.service.provider.once('grant.success', (ctx: Context) => {
        seen = { oidc: ctx.oidc as Record<string, unknown>, ctx };
        ready = afterRelease(ctx);
      });
      const res = await tokenRequest(running, { grant_type: 'client_credentials', resource, scope: 'read' }, app);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.access_token).to.be.a('string');
      await ready;
      expect(seen!.oidc.params).to.equal(undefined);
      expect(seen!.oidc.entities).to.equal(undefined);
      expect(seen!.ctx.req).to.equal(undefined);

      const again = await tokenRequest(running, { grant_type: 'client_credentials', resource, scope: 'read' }, app);
      expect(again.status, 'the next request has a context of its own').to.equal(200);
    } finally {
      await running.close();
    }
  });
});
