import { expect } from 'chai';
import { ALL_EVENTS } from '../../../lib/events/catalogue.ts';
import type { RunningService } from '../../support/service.ts';
import { bodyOf, createHook, getJson, startHookService, verifyDelivery } from '../../support/webhooks/hooks.ts';
import { Receiver, refusingUrl } from '../../support/webhooks/receiver.ts';

describe('hooks API: POST /api/hooks/:id/test', () => {
  let running: RunningService;
  let receiver: Receiver;

  before(async () => {
    receiver = await Receiver.start();
    receiver.script('/broken', () => ({ status: 500, body: 'database on fire' }));
    receiver.script('/forbidden', () => ({ status: 403, body: 'who are you?' }));
    running = await startHookService('memory', { WEBHOOK_TIMEOUT_MS: '500' });
  });
  after(async () => {
    await running.close();
    await receiver.close();
  });

  const test = (id: string, json: unknown) => running.request(`/api/hooks/${id}/test`, { method: 'POST', json });

  it('sends one signed sample per event to the given config, synchronously, and answers 204', async () => {
    const hook = await createHook(running, { events: ['User.Created'], config: { url: receiver.url('/saved') } });
    const events = ['PostRegister', 'User.Created', 'Organization.Membership.Updated', 'Identifier.Lockout'];
    const response = await test(hook.id, {
      events,
      config: { url: receiver.url('/trial'), headers: { 'x-trial': 'yes' } },
    });
    expect(response.status).to.equal(204);
    // Synchronous: everything has arrived by the time the response does.
    const received = receiver.requests('/trial');
    expect(received.map((request) => verifyDelivery(request, hook.signingKey).event)).to.deep.equal(events);
    for (const request of received) {
      expect(request.headers['x-trial']).to.equal('yes');
      expect(JSON.parse(request.body).hookId).to.equal(hook.id);
    }
    expect(receiver.requests('/saved')).to.have.length(0);
  });

  it('has a sample for every event in the catalogue', async () => {
    const hook = await createHook(running, { events: ['User.Created'], config: { url: receiver.url('/saved') } });
    const response = await test(hook.id, { events: [...ALL_EVENTS], config: { url: receiver.url('/all') } });
    expect(response.status).to.equal(204);
    const payloads = receiver.requests('/all').map((request) => verifyDelivery(request, hook.signingKey));
    expect(payloads.map((payload) => payload.event)).to.deep.equal([...ALL_EVENTS]);
    for (const payload of payloads) expect(payload.createdAt).to.be.a('string');
  });

  it('neither queues nor logs test sends', async () => {
    const hook = await createHook(running, { events: ['User.Created'], config: { url: receiver.url('/saved') } });
    expect(
      (await test(hook.id, { events: ['User.Created'], config: { url: receiver.url('/quiet') } })).status,
    ).to.equal(204);
    expect(await getJson(running, `/api/hooks/${hook.id}/deliveries`)).to.deep.equal([]);
    expect(await getJson(running, `/api/hooks/${hook.id}/recent-logs`)).to.deep.equal([]);
  });

  for (const [path, status, body] of [
    ['/broken', 500, 'database on fire'],
    ['/forbidden', 403, 'who are you?'],
  ] as const) {
    it(`answers 422 hook.endpoint_responded_with_error with the endpoint's ${status}`, async () => {
      const hook = await createHook(running, { events: ['User.Created'], config: { url: receiver.url(path) } });
      const response = await test(hook.id, { events: ['User.Created'], config: { url: receiver.url(path) } });
      const error = await bodyOf(response);
      expect(response.status).to.equal(422);
      expect(error.code).to.equal('hook.endpoint_responded_with_error');
      expect(error.data).to.deep.equal({ responseStatus: status, responseBody: body });
    });
  }

  it('answers 422 hook.send_test_payload_failed when nothing answers', async () => {
    const hook = await createHook(running, { events: ['User.Created'], config: { url: receiver.url('/saved') } });
    const response = await test(hook.id, { events: ['User.Created'], config: { url: await refusingUrl() } });
    const error = await bodyOf(response);
    expect(response.status).to.equal(422);
    expect(error.code).to.equal('hook.send_test_payload_failed');
    expect(error.message).to.match(/ECONNREFUSED/);
  });

  it('answers 422 hook.send_test_payload_failed on a timeout', async () => {
    receiver.script('/slow', () => 'hang');
    const hook = await createHook(running, { events: ['User.Created'], config: { url: receiver.url('/saved') } });
    const response = await test(hook.id, { events: ['User.Created'], config: { url: receiver.url('/slow') } });
    expect(response.status).to.equal(422);
    expect((await bodyOf(response)).data).to.deep.equal({ reason: 'timeout' });
  });

  it('validates the events and the config', async () => {
    const hook = await createHook(running, { events: ['User.Created'], config: { url: receiver.url('/saved') } });
    const missing = await test(hook.id, { config: { url: receiver.url('/trial') } });
    expect((await bodyOf(missing)).code).to.equal('hook.missing_events');
    const unknown = await test(hook.id, { events: ['User.Vanished'], config: { url: receiver.url('/trial') } });
    expect(unknown.status).to.equal(400);
    const badUrl = await test(hook.id, { events: ['User.Created'], config: { url: 'file:///etc/passwd' } });
    expect(badUrl.status).to.equal(400);
  });
});
