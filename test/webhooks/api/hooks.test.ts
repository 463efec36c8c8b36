import { expect } from 'chai';
import { ALL_EVENTS } from '../../../lib/events/catalogue.ts';
import type { RunningService } from '../../support/service.ts';
import { bodyOf, createHook, getJson, startHookService } from '../../support/webhooks/hooks.ts';

const config = { url: 'https://consumer.example.com/hooks', headers: { 'x-tenant': 'acme' } };

describe('hooks API: registration', () => {
  let running: RunningService;

  before(async () => {
    running = await startHookService('memory');
  });
  after(async () => running.close());

  const post = (json: unknown) => running.request('/api/hooks', { method: 'POST', json });
  const patch = (id: string, json: unknown) => running.request(`/api/hooks/${id}`, { method: 'PATCH', json });

  async function expectError(response: Response, status: number, code: string) {
    const body = await bodyOf(response);
    expect(response.status, JSON.stringify(body)).to.equal(status);
    expect(body.code).to.equal(code);
    return body;
  }

  it("creates a hook in Logto's shape and shows its whsec_ signing key only in that response", async () => {
    const created = await createHook(running, { name: 'CRM sync', events: ['User.Created', 'User.Deleted'], config });
    expect(created).to.include({ name: 'CRM sync', event: null, enabled: true });
    expect(created.events).to.deep.equal(['User.Created', 'User.Deleted']);
    expect(created.config).to.deep.equal(config);
    expect(created.createdAt).to.be.a('number');
    expect(created.signingKey).to.match(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(created.signingKey.slice(6), 'base64')).to.have.length(32);

    const fetched = await getJson(running, `/api/hooks/${created.id}`);
    expect(fetched).to.not.have.property('signingKey');
    expect(fetched).to.not.have.property('retiredSigningKeys');
    const { signingKey: _key, ...shown } = created;
    expect(fetched).to.deep.equal(shown);
  });

  it('lists hooks with Total-Number and pages, never with keys', async () => {
    for (const name of ['list-a', 'list-b']) await createHook(running, { name, events: ['Role.Created'], config });
    const response = await running.request('/api/hooks?page=1&page_size=2');
    const hooks = await bodyOf(response);
    expect(response.status).to.equal(200);
    expect(Number(response.headers.get('total-number'))).to.be.at.least(3);
    expect(hooks).to.have.length(2);
    for (const hook of hooks) expect(hook).to.not.have.property('signingKey');
  });

  it('answers 400 hook.missing_events without events, or with an empty list', async () => {
    await expectError(await post({ name: 'x', config }), 400, 'hook.missing_events');
    await expectError(await post({ name: 'x', events: [], config }), 400, 'hook.missing_events');
  });

  it('rejects unknown event names, listing the valid ones', async () => {
    const body = await expectError(
      await post({ name: 'x', events: ['User.Created', 'User.Exploded', 'Role.Scopes.Update'], config }),
      400,
      'guard.invalid_input',
    );
    expect(body.data.unknownEvents).to.deep.equal(['User.Exploded', 'Role.Scopes.Update']);
    expect(body.data.validEvents).to.deep.equal([...ALL_EVENTS]);
    expect(body.message).to.include('Role.Scopes.Updated');
  });

  it("accepts Logto's deprecated single `event` field", async () => {
    const created = await createHook(running, { event: 'PostRegister', config });
    expect(created.events).to.deep.equal(['PostRegister']);
    expect(created.event).to.equal(null);
  });

  it('creates a disabled hook when asked, and de-duplicates events', async () => {
    const created = await createHook(running, { events: ['Role.Created', 'Role.Created'], config, enabled: false });
    expect(created.enabled).to.equal(false);
    expect(created.events).to.deep.equal(['Role.Created']);
  });

  for (const url of ['ftp://consumer.example.com/x', '/relative', 'javascript:alert(1)', 'not a url']) {
    it(`rejects the endpoint URL ${JSON.stringify(url)}`, async () => {
      await expectError(
        await post({ name: 'x', events: ['User.Created'], config: { url } }),
        400,
        'guard.invalid_input',
      );
    });
  }

  it('rejects custom headers the service sets itself, and malformed ones', async () => {
    for (const headers of [
      { 'Webhook-Signature': 'x' },
      { 'content-type': 'text/plain' },
      { 'bad header': 'x' },
      { 'x-a': 'a\r\nb' },
    ]) {
      await expectError(
        await post({ name: 'x', events: ['User.Created'], config: { url: config.url, headers } }),
        400,
        'guard.invalid_input',
      );
    }
  });

  it("takes Logto's legacy { event, config: { url, retries } } and its earlier event names, refusing events that never happen here", async () => {
    const legacy = await post({ event: 'User.Updated', config: { url: config.url, retries: 3 } });
    const created = await bodyOf(legacy);
    expect(legacy.status, JSON.stringify(created)).to.equal(201);
    expect(created).to.include({ name: '', event: null });
    expect(created.events, "User.Updated is Logto's earlier User.Data.Updated").to.deep.equal(['User.Data.Updated']);
    expect(created.config, 'retries is not stored: every hook retries on the schedule').to.deep.equal({
      url: config.url,
    });

    const renamed = await bodyOf(
      await patch(created.id, { events: ['Organization.Updated', 'OrganizationRole.Updated', 'Scope.Updated'] }),
    );
    expect(renamed.events).to.deep.equal([
      'Organization.Data.Updated',
      'OrganizationRole.Data.Updated',
      'Scope.Data.Updated',
    ]);
    const single = await bodyOf(await patch(created.id, { event: 'PostSignIn' }));
    expect([single.events, single.event], "Logto's legacy event alone subscribes to it").to.deep.equal([
      ['PostSignIn'],
      null,
    ]);
    expect(
      (await bodyOf(await patch(created.id, { event: null, name: 'kept' }))).events,
      'null changes nothing',
    ).to.deep.equal(['PostSignIn']);

    for (const retries of [4, -1, 1.5, '3']) {
      await expectError(
        await post({ event: 'User.Created', config: { url: config.url, retries } }),
        400,
        'guard.invalid_input',
      );
    }
    const adaptive = await expectError(
      await post({ events: ['PostSignInAdaptiveMfaTriggered'], config }),
      400,
      'guard.invalid_input',
    );
    expect(JSON.stringify(adaptive)).to.include('adaptive MFA is not implemented here');
  });

  it('updates name, events, config and enabled', async () => {
    const { id } = await createHook(running, { events: ['User.Created'], config });
    const response = await patch(id, {
      name: 'renamed',
      events: ['Organization.Created'],
      config: { url: 'http://other.example.com/x' },
      enabled: false,
    });
    const updated = await bodyOf(response);
    expect(response.status).to.equal(200);
    expect(updated).to.include({ id, name: 'renamed', enabled: false });
    expect(updated.events).to.deep.equal(['Organization.Created']);
    expect(updated.config).to.deep.equal({ url: 'http://other.example.com/x' });
    expect(updated).to.not.have.property('signingKey');
    expect(await getJson(running, `/api/hooks/${id}`)).to.deep.equal(updated);
  });

  it('applies the event rules to updates too', async () => {
    const { id } = await createHook(running, { events: ['User.Created'], config });
    await expectError(await patch(id, { events: [] }), 400, 'hook.missing_events');
    await expectError(await patch(id, { events: ['Nope'] }), 400, 'guard.invalid_input');
    await expectError(await patch(id, { signingKey: 'whsec_x' }), 400, 'guard.invalid_input');
  });

  it('deletes a hook', async () => {
    const { id } = await createHook(running, { events: ['User.Created'], config });
    expect((await running.request(`/api/hooks/${id}`, { method: 'DELETE' })).status).to.equal(204);
    await expectError(await running.request(`/api/hooks/${id}`), 404, 'entity.not_exists_with_id');
  });

  it("answers 404 for an unknown hook on every route, with Logto's code for it", async () => {
    for (const [method, path, code, json] of [
      ['PATCH', '/api/hooks/missing', 'entity.not_exists', { name: 'x' }],
      ['PATCH', '/api/hooks/missing/signing-key', 'entity.not_exists'],
      ['DELETE', '/api/hooks/missing', 'entity.not_found'],
    ] as const) {
      await expectError(await running.request(path, { method, ...(json === undefined ? {} : { json }) }), 404, code);
    }
    const routes: Array<[string, string, unknown?]> = [
      ['GET', '/api/hooks/missing'],
      ['POST', '/api/hooks/missing/test', { events: ['User.Created'], config }],
      ['GET', '/api/hooks/missing/recent-logs'],
      ['GET', '/api/hooks/missing/deliveries'],
      ['GET', '/api/hooks/missing/deliveries/dlv_x'],
      ['POST', '/api/hooks/missing/deliveries/dlv_x/resend'],
    ];
    for (const [method, path, json] of routes) {
      const response = await running.request(path, { method, ...(json === undefined ? {} : { json }) });
      await expectError(response, 404, 'entity.not_exists_with_id');
    }
  });

  it('requires a management token', async () => {
    const response = await fetch(`${running.baseUrl}/api/hooks`);
    expect(response.status).to.equal(401);
  });

  it('documents every hook route in the OpenAPI document', async () => {
    const { paths } = await bodyOf(await fetch(`${running.baseUrl}/api/swagger.json`));
    expect(Object.keys(paths['/api/hooks'])).to.have.members(['get', 'post']);
    expect(Object.keys(paths['/api/hooks/{id}'])).to.have.members(['get', 'patch', 'delete']);
    for (const path of [
      '/api/hooks/{id}/signing-key',
      '/api/hooks/{id}/test',
      '/api/hooks/{id}/recent-logs',
      '/api/hooks/{id}/deliveries',
      '/api/hooks/{id}/deliveries/{deliveryId}',
      '/api/hooks/{id}/deliveries/{deliveryId}/resend',
    ])
      expect(paths, path).to.have.property(path);
  });
});
