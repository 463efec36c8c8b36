import { expect } from 'chai';
import type { EventName } from '../../../lib/events/catalogue.ts';
import { craftedEvent } from '../../support/events.ts';
import type { RunningService } from '../../support/service.ts';
import {
  DeliveryVerifier,
  bodyOf,
  createHook,
  getJson,
  startHookService,
  verifyDelivery,
} from '../../support/webhooks/hooks.ts';
import { Receiver, eventually, sequence } from '../../support/webhooks/receiver.ts';

describe('hooks API: recent logs, deliveries and resend', () => {
  let running: RunningService;
  let receiver: Receiver;
  let verifier: DeliveryVerifier;

  before(async () => {
    receiver = await Receiver.start();
    verifier = new DeliveryVerifier(receiver);
    running = await startHookService('memory', { WEBHOOK_LOG_RETENTION_DAYS: '3' });
  });
  afterEach("every delivery received verifies with standardwebhooks and Logto's HMAC", () => {
    verifier.verifyNew();
  });
  after(async () => {
    await running.close();
    await receiver.close();
  });

  async function hookAt(path: string, events: string[]) {
    const hook = await createHook(running, { events, config: { url: receiver.url(path) } });
    verifier.expect(path, hook.signingKey);
    return hook;
  }

  const publish = (event: EventName, data: unknown = { id: 'u1' }) =>
    running.service.core.bus.publish([craftedEvent(event, { data })]);

  async function deliveriesOf(hookId: string, query = ''): Promise<any[]> {
    return getJson(running, `/api/hooks/${hookId}/deliveries${query}`);
  }

  async function settled(hookId: string, count: number): Promise<any[]> {
    return eventually(async () => {
      const list = await deliveriesOf(hookId);
      return list.length === count && list.every((d) => d.status !== 'pending') && list;
    });
  }

  it("logs every attempt in Logto's shape, newest first, with response, latency and next retry", async () => {
    receiver.script('/flaky', sequence(500));
    const hook = await hookAt('/flaky', ['User.Created']);
    await publish('User.Created');
    const [delivery] = await settled(hook.id, 1);

    const response = await running.request(`/api/hooks/${hook.id}/recent-logs`);
    const logs = await bodyOf(response);
    expect(response.headers.get('total-number')).to.equal('2');
    expect(logs.map((log: any) => log.payload.attempt)).to.deep.equal([2, 1]);
    const [second, first] = logs;
    expect(first).to.include({ key: 'TriggerHook.User.Created' });
    expect(first.payload).to.include({
      key: 'TriggerHook.User.Created',
      result: 'Error',
      hookId: hook.id,
      deliveryId: delivery.id,
      event: 'User.Created',
    });
    expect(first.payload.response).to.deep.equal({ status: 500, statusCode: 500, body: 'reply 1' });
    expect(first.payload.hookRequest.body, "Logto's hookRequest: the payload sent").to.include({
      event: 'User.Created',
    });
    expect(first.payload.nextRetryAt).to.be.a('number').and.greaterThan(first.createdAt);
    expect(first.payload.latencyMs).to.be.a('number');
    expect(second.payload).to.include({ result: 'Success', nextRetryAt: null });
    expect(JSON.stringify(logs)).to.not.include(hook.signingKey);

    const filtered = await getJson(running, `/api/hooks/${hook.id}/recent-logs?logKey=TriggerHook.Role.Created`);
    expect(filtered).to.deep.equal([]);
    const paged = await getJson(running, `/api/hooks/${hook.id}/recent-logs?page=2&page_size=1`);
    expect(paged.map((log: any) => log.payload.attempt)).to.deep.equal([1]);
  });

  it('keeps logs and deliveries for WEBHOOK_LOG_RETENTION_DAYS through TTL indexes', async () => {
    const hook = await hookAt('/kept', ['User.Created']);
    await publish('User.Created');
    await settled(hook.id, 1);
    const threeDays = 3 * 86_400_000;
    const [log] = await running.service.core.store.collection('webhook_logs').find({ hookId: hook.id });
    const [delivery] = await running.service.core.store.collection('webhook_deliveries').find({ hookId: hook.id });
    // A log is kept for the retention period, up to the next whole second.
    expect((log!.expiresAt as Date).getTime()).to.equal(
      Math.ceil(((log!.createdAt as number) + threeDays) / 1000) * 1000,
    );
    expect((delivery!.expiresAt as Date).getTime() - (delivery!.createdAt as number)).to.equal(threeDays);
  });

  it("gives Logto's response.body parsed when the receiver answers a whole JSON object, as text when it is cut", async () => {
    const echo = { received: true, tags: ['a', 'b'] };
    receiver.script('/json', (nth) =>
      nth === 1
        ? { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(echo) }
        : { status: 200, body: JSON.stringify({ padding: 'x'.repeat(5000) }) },
    );
    const hook = await hookAt('/json', ['User.Created']);
    await publish('User.Created');
    await settled(hook.id, 1);
    await publish('User.Created');
    await settled(hook.id, 2);
    const [cut, whole] = await getJson<any[]>(running, `/api/hooks/${hook.id}/recent-logs`);
    expect(whole.payload.response).to.deep.equal({ status: 200, statusCode: 200, body: echo });
    expect(cut.payload.response.body)
      .to.be.a('string')
      .and.match(/^\{"padding":"x+$/);
  });

  it('tells succeeded, failed and exhausted deliveries apart, and filters by status', async () => {
    receiver.script('/mixed', (_nth, request) => {
      const kind = JSON.parse(request.body).data.kind as string;
      if (kind === 'refused') return { status: 422, body: 'no thanks' };
      if (kind === 'down') return { status: 503 };
      return { status: 204 };
    });
    const hook = await hookAt('/mixed', ['User.Data.Updated']);
    for (const kind of ['ok', 'refused', 'down']) await publish('User.Data.Updated', { kind });
    const list = await settled(hook.id, 3);
    const byKind = Object.fromEntries(list.map((d) => [d.status, d]));
    expect(byKind.succeeded).to.include({ attempts: 1, lastResponseStatus: 204, nextRetryAt: null });
    expect(byKind.failed).to.include({ attempts: 1, lastResponseStatus: 422 });
    // Two retries with WEBHOOK_RETRY_DELAYS_MS=50,100.
    expect(byKind.exhausted).to.include({ attempts: 3, lastResponseStatus: 503, nextRetryAt: null });
    for (const delivery of list) {
      expect(delivery).to.include({ hookId: hook.id, event: 'User.Data.Updated', resentFrom: null });
      expect(delivery.id).to.match(/^dlv_/);
      expect(delivery).to.not.have.property('payload');
    }
    expect((await deliveriesOf(hook.id, '?status=failed')).map((d) => d.id)).to.deep.equal([byKind.failed.id]);
  });

  it('reports execution stats over the last 24 hours', async () => {
    receiver.script('/stats', sequence(500, 500));
    const hook = await hookAt('/stats', ['User.Created']);
    await publish('User.Created');
    await settled(hook.id, 1);
    const one = await getJson(running, `/api/hooks/${hook.id}?includeExecutionStats=true`);
    expect(one.executionStats).to.deep.equal({ successCount: 1, requestCount: 3 });
    const list = await getJson(running, '/api/hooks?includeExecutionStats=true&page_size=100');
    expect(list.find((h: any) => h.id === hook.id).executionStats).to.deep.equal({ successCount: 1, requestCount: 3 });
    expect(await getJson(running, `/api/hooks/${hook.id}`)).to.not.have.property('executionStats');
  });

  it('shows one delivery with its payload and its attempts', async () => {
    receiver.script('/detail', sequence(429));
    const hook = await hookAt('/detail', ['User.Created']);
    await publish('User.Created', { id: 'detail-user' });
    const [delivery] = await settled(hook.id, 1);
    const detail = await getJson(running, `/api/hooks/${hook.id}/deliveries/${delivery.id}`);
    expect(detail).to.include({ id: delivery.id, status: 'succeeded', attempts: 2 });
    expect(detail.payload).to.include({ event: 'User.Created', hookId: hook.id });
    expect(detail.payload.data).to.deep.equal({ id: 'detail-user' });
    expect(detail.logs.map((log: any) => [log.payload.attempt, log.payload.result])).to.deep.equal([
      [1, 'Error'],
      [2, 'Success'],
    ]);
    const other = await hookAt('/elsewhere', ['User.Created']);
    const response = await running.request(`/api/hooks/${other.id}/deliveries/${delivery.id}`);
    expect(response.status).to.equal(404);
  });

  it('shows each hook of one event the payload it was sent, its own hook id last', async () => {
    const hooks = [await hookAt('/shared-a', ['Role.Created']), await hookAt('/shared-b', ['Role.Created'])];
    await publish('Role.Created', { id: 'role-shared', name: 'shared' });
    for (const [i, hook] of hooks.entries()) {
      const [delivery] = await settled(hook.id, 1);
      const [received] = receiver.requests(i === 0 ? '/shared-a' : '/shared-b');
      const detail = await getJson(running, `/api/hooks/${hook.id}/deliveries/${delivery.id}`);
      expect(JSON.stringify(detail.payload)).to.equal(received!.body);
      expect(Object.keys(detail.payload).at(-1)).to.equal('hookId');
      expect(detail.payload).to.include({ event: 'Role.Created', hookId: hook.id });
    }
  });

  it("resends a delivery's exact payload as a new delivery with a new webhook-id", async () => {
    const hook = await hookAt('/resend', ['Role.Deleted']);
    await publish('Role.Deleted', { id: 'role-1', name: 'gone' });
    const [original] = await settled(hook.id, 1);

    const response = await running.request(`/api/hooks/${hook.id}/deliveries/${original.id}/resend`, {
      method: 'POST',
    });
    const resent = await bodyOf(response);
    expect(response.status).to.equal(202);
    expect(resent).to.include({
      hookId: hook.id,
      event: 'Role.Deleted',
      status: 'pending',
      attempts: 0,
      resentFrom: original.id,
    });
    expect(resent.id).to.match(/^dlv_/).and.not.equal(original.id);

    const [first, second] = await eventually(
      () => receiver.requests('/resend').length === 2 && receiver.requests('/resend'),
    );
    expect(first!.headers['webhook-id']).to.equal(original.id);
    expect(second!.headers['webhook-id']).to.equal(resent.id);
    expect(verifyDelivery(second!, hook.signingKey)).to.deep.equal(verifyDelivery(first!, hook.signingKey));
    await eventually(async () => (await deliveriesOf(hook.id, '?status=succeeded')).length === 2);
  });

  it('refuses to resend an unknown delivery (404) or to a disabled hook (422)', async () => {
    const hook = await hookAt('/refuse', ['User.Created']);
    await publish('User.Created');
    const [delivery] = await settled(hook.id, 1);
    const unknown = await running.request(`/api/hooks/${hook.id}/deliveries/dlv_unknown/resend`, { method: 'POST' });
    expect(unknown.status).to.equal(404);
    await running.request(`/api/hooks/${hook.id}`, { method: 'PATCH', json: { enabled: false } });
    const disabled = await running.request(`/api/hooks/${hook.id}/deliveries/${delivery.id}/resend`, {
      method: 'POST',
    });
    expect(disabled.status).to.equal(422);
    expect((await bodyOf(disabled)).code).to.equal('hook.disabled');
  });

  it("forgets a deleted hook's deliveries and logs", async () => {
    const hook = await hookAt('/forgotten', ['User.Created']);
    await publish('User.Created');
    await settled(hook.id, 1);
    await running.request(`/api/hooks/${hook.id}`, { method: 'DELETE' });
    const { store } = running.service.core;
    expect(await store.collection('webhook_deliveries').countDocuments({ hookId: hook.id })).to.equal(0);
    expect(await store.collection('webhook_logs').countDocuments({ hookId: hook.id })).to.equal(0);
  });
});
