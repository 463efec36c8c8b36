import { expect } from 'chai';
import type { EventName } from '../../../lib/events/catalogue.ts';
import { craftedEvent } from '../../support/events.ts';
import type { RunningService } from '../../support/service.ts';
import {
  BACKENDS,
  DeliveryVerifier,
  bodyOf,
  createHook,
  getJson,
  startHookService,
  verifyDelivery,
} from '../../support/webhooks/hooks.ts';
import { Receiver, eventually, refusingUrl, sequence } from '../../support/webhooks/receiver.ts';

/**
 * What a webhook consumer observes, end to end: a management request (or a published event) in, signed
 * HTTP POSTs out, retried per the policy. Every case runs on the in-process queue (embedded mode) and on
 * BullMQ against the real Redis.
 */
for (const backend of BACKENDS) {
  describe(`webhook delivery (${backend})`, () => {
    let running: RunningService;
    let receiver: Receiver;
    let verifier: DeliveryVerifier;

    before(async () => {
      receiver = await Receiver.start();
      verifier = new DeliveryVerifier(receiver);
      running = await startHookService(backend, {
        WEBHOOK_TIMEOUT_MS: '300',
        WEBHOOK_RETRY_AFTER_CAP_MS: '200',
      });
    });
    afterEach("every delivery received verifies with standardwebhooks and Logto's HMAC", () => {
      verifier.verifyNew();
    });
    after(async () => {
      await running.close();
      await receiver.close();
    });

    const publish = (event: EventName, data: unknown = { id: 'u1' }) =>
      running.service.core.bus.publish([craftedEvent(event, { data })]);
    interface HookOptions {
      events?: string[];
      headers?: Record<string, string>;
      enabled?: boolean;
      /** Receiver paths the hook will be moved to: what arrives there is signed with its key too. */
      movesTo?: string[];
    }

    async function hookAt(
      path: string,
      { events = ['User.Created'], headers, enabled, movesTo = [] }: HookOptions = {},
    ) {
      const hook = await createHook(running, {
        events,
        config: { url: receiver.url(path), ...(headers ? { headers } : {}) },
        ...(enabled === undefined ? {} : { enabled }),
      });
      for (const target of [path, ...movesTo]) verifier.expect(target, hook.signingKey);
      return hook;
    }
    const deliveries = (hookId: string) => getJson<any[]>(running, `/api/hooks/${hookId}/deliveries`);
    const logs = async (hookId: string) =>
      (await getJson<any[]>(running, `/api/hooks/${hookId}/recent-logs?page_size=100`)).reverse();
    const finished = (hookId: string) =>
      eventually(async () => {
        const [delivery] = await deliveries(hookId);
        return delivery && delivery.status !== 'pending' && delivery;
      });
    let sentinels = 0;
    /**
     * Publishes an event that only a new hook subscribes to and waits until that hook receives it: the worker
     * has then taken up every job enqueued before, so what has not arrived by now is not on its way.
     */
    async function deliveredPastThisPoint() {
      const path = `/sentinel-${++sentinels}`;
      await hookAt(path, { events: ['OrganizationScope.Deleted'] });
      await publish('OrganizationScope.Deleted');
      await eventually(() => receiver.requests(path)[0], { what: `the delivery to ${path}` });
    }

    it("POSTs the event as signed JSON that the standardwebhooks verifier and Logto's HMAC both accept", async () => {
      const hook = await hookAt('/signed', {
        events: ['Role.Created'],
        headers: { 'x-tenant': 'acme', Authorization: 'Bearer consumer' },
      });
      const response = await running.request('/api/roles', { method: 'POST', json: { name: `role-${backend}` } });
      const role = await bodyOf(response);
      const request = await eventually(() => receiver.requests('/signed')[0]);

      const payload = verifyDelivery(request, hook.signingKey);
      expect(payload).to.include({
        event: 'Role.Created',
        hookId: hook.id,
        path: '/roles',
        method: 'POST',
        status: 201,
        matchedRoute: '/roles',
      });
      expect(payload.data).to.deep.equal(role);
      expect(payload.createdAt).to.match(/^\d{4}-\d\d-\d\dT/);
      expect(request.headers).to.include({
        'content-type': 'application/json',
        'x-tenant': 'acme',
        authorization: 'Bearer consumer',
      });
      expect(request.headers['user-agent']).to.match(/^identity-service-webhooks\//);
      expect(request.headers['webhook-id']).to.match(/^dlv_/);
      expect(Number(request.headers['webhook-timestamp'])).to.be.closeTo(Date.now() / 1000, 60);
      expect(request.headers['webhook-signature']).to.match(/^v1,[A-Za-z0-9+/]+=*$/);
    });

    it('retries 500, 503 then succeeds: three attempts under one webhook-id', async () => {
      receiver.script('/fail-fail-succeed', sequence(500, 503));
      const hook = await hookAt('/fail-fail-succeed');
      await publish('User.Created');
      const delivery = await finished(hook.id);
      const received = receiver.requests('/fail-fail-succeed');
      expect(received).to.have.length(3);
      expect(new Set(received.map((r) => r.headers['webhook-id']))).to.deep.equal(new Set([delivery.id]));
      for (const request of received) verifyDelivery(request, hook.signingKey);
      expect(delivery).to.include({ status: 'succeeded', attempts: 3, lastResponseStatus: 200 });
      expect((await logs(hook.id)).map((log) => [log.payload.attempt, log.payload.response.status])).to.deep.equal([
        [1, 500],
        [2, 503],
        [3, 200],
      ]);
    });

    it("makes a single attempt on a 4xx and marks the delivery failed, with the attempt's latency and the start of the answer", async () => {
      const answer = `malformed ${'x'.repeat(300)}`;
      receiver.script('/bad-request', () => ({ status: 400, body: answer }));
      const hook = await hookAt('/bad-request');
      await publish('User.Created');
      const delivery = await finished(hook.id);
      // Failed with no retry scheduled: the worker is done with this delivery.
      expect(delivery).to.include({ status: 'failed', attempts: 1, lastResponseStatus: 400, nextRetryAt: null });
      // The list says how long the attempt took and how the answer began (the logs keep more of it).
      expect(delivery.lastResponseExcerpt).to.equal(answer.slice(0, 200));
      expect(delivery.lastLatencyMs).to.be.a('number').and.to.be.at.least(0);
      expect(receiver.requests('/bad-request')).to.have.length(1);
      expect((await logs(hook.id)).map((log) => log.payload.attempt)).to.deep.equal([1]);
    });

    it('disables the hook on 410 Gone and sends it nothing more', async () => {
      receiver.script('/gone', () => ({ status: 410 }));
      const hook = await hookAt('/gone');
      await publish('User.Created');
      const delivery = await finished(hook.id);
      expect(delivery).to.include({ status: 'failed', attempts: 1, lastResponseStatus: 410 });
      await eventually(async () => (await getJson(running, `/api/hooks/${hook.id}`)).enabled === false);
      await publish('User.Created');
      // Deliveries are recorded before publish returns, so none recorded means none will be sent.
      expect(await deliveries(hook.id)).to.have.length(1);
      await deliveredPastThisPoint();
      expect(receiver.requests('/gone')).to.have.length(1);
    });

    it('counts a 3xx as a failure: the redirect is not followed, the delivery is retried until exhausted', async () => {
      receiver.script('/moved', () => ({ status: 301, headers: { location: receiver.url('/new-home') } }));
      const hook = await hookAt('/moved');
      await publish('User.Created');
      const delivery = await finished(hook.id);
      expect(delivery).to.include({ status: 'exhausted', attempts: 3, lastResponseStatus: 301 });
      expect(receiver.requests('/moved')).to.have.length(3);
      expect(receiver.requests('/new-home')).to.have.length(0);
    });

    it('times out a hanging endpoint and retries it', async () => {
      receiver.script('/hang-once', (nth) => (nth === 1 ? 'hang' : { status: 200 }));
      const hook = await hookAt('/hang-once');
      await publish('User.Created');
      const delivery = await finished(hook.id);
      expect(delivery).to.include({ status: 'succeeded', attempts: 2 });
      const [first, second] = await logs(hook.id);
      expect(first.payload).to.include({ result: 'Error', error: 'timeout' });
      expect(first.payload).to.not.have.property('response');
      expect(second.payload).to.include({ result: 'Success' });
      const ids = receiver.requests('/hang-once').map((r) => r.headers['webhook-id']);
      expect(ids).to.deep.equal([delivery.id, delivery.id]);
    });

    it('retries network errors until the schedule is exhausted', async () => {
      const hook = await createHook(running, { events: ['User.Created'], config: { url: await refusingUrl() } });
      await publish('User.Created');
      const delivery = await finished(hook.id);
      expect(delivery).to.include({ status: 'exhausted', attempts: 3, lastResponseStatus: null });
      expect(delivery.lastError).to.match(/ECONNREFUSED/);
    });

    it('retries 429 and 408, honouring Retry-After up to WEBHOOK_RETRY_AFTER_CAP_MS', async () => {
      receiver.script('/limited', (nth) =>
        nth === 1 ? { status: 429, headers: { 'retry-after': '3600' } } : nth === 2 ? { status: 408 } : { status: 200 },
      );
      const hook = await hookAt('/limited');
      await publish('User.Created');
      const delivery = await finished(hook.id);
      expect(delivery).to.include({ status: 'succeeded', attempts: 3 });
      const [limited] = await logs(hook.id);
      // An hour asked, the 200 ms cap granted: longer than the 50 ms (±20 %) schedule, far shorter than asked.
      expect(limited.payload.nextRetryAt - limited.createdAt).to.equal(200);
    });

    it('sends each event to every enabled hook subscribed to it, with one delivery id each', async () => {
      const first = await hookAt('/fan-a', { events: ['Scope.Created', 'User.Created'] });
      const second = await hookAt('/fan-b', { events: ['Scope.Created'] });
      const unsubscribed = await hookAt('/fan-c', { events: ['User.Deleted'] });
      const disabled = await hookAt('/fan-d', { events: ['Scope.Created'], enabled: false });
      await publish('Scope.Created', { id: 'scope-1' });
      const [a, b] = await eventually(() => {
        const both = [receiver.requests('/fan-a')[0], receiver.requests('/fan-b')[0]];
        return both.every(Boolean) && both;
      });
      expect(verifyDelivery(a!, first.signingKey).hookId).to.equal(first.id);
      expect(verifyDelivery(b!, second.signingKey).hookId).to.equal(second.id);
      expect(a!.headers['webhook-id']).to.not.equal(b!.headers['webhook-id']);
      expect(await deliveries(unsubscribed.id)).to.deep.equal([]);
      expect(await deliveries(disabled.id)).to.deep.equal([]);
      await deliveredPastThisPoint();
      expect(receiver.requests('/fan-c')).to.have.length(0);
      expect(receiver.requests('/fan-d')).to.have.length(0);
    });

    it("retries one hook's delivery of an event on its own: the event's other hooks get it once", async () => {
      receiver.script('/together-flaky', sequence(503));
      const flaky = await hookAt('/together-flaky', { events: ['Organization.Created'] });
      const steady = await Promise.all(
        ['/together-a', '/together-b'].map((path) => hookAt(path, { events: ['Organization.Created'] })),
      );
      await publish('Organization.Created', { id: 'org-1' });
      const delivery = await finished(flaky.id);
      expect(delivery).to.include({ status: 'succeeded', attempts: 2 });
      for (const hook of steady) expect(await finished(hook.id)).to.include({ status: 'succeeded', attempts: 1 });
      await deliveredPastThisPoint();
      expect(receiver.requests('/together-flaky').map((request) => request.headers['webhook-id'])).to.deep.equal([
        delivery.id,
        delivery.id,
      ]);
      expect(receiver.requests('/together-a')).to.have.length(1);
      expect(receiver.requests('/together-b')).to.have.length(1);
    });

    it('applies hook changes at once: new URL, disabled, deleted', async () => {
      const hook = await hookAt('/before', { movesTo: ['/after'] });
      await running.request(`/api/hooks/${hook.id}`, {
        method: 'PATCH',
        json: { config: { url: receiver.url('/after') } },
      });
      await publish('User.Created');
      await eventually(() => receiver.requests('/after')[0]);
      await running.request(`/api/hooks/${hook.id}`, { method: 'PATCH', json: { enabled: false } });
      await publish('User.Created');
      expect(await deliveries(hook.id), 'nothing recorded for the disabled hook').to.have.length(1);
      await running.request(`/api/hooks/${hook.id}`, { method: 'DELETE' });
      await publish('User.Created');
      await deliveredPastThisPoint();
      expect(receiver.requests('/before')).to.have.length(0);
      expect(receiver.requests('/after')).to.have.length(1);
    });

    it('sends a retry to the hook as it is at that moment, and drops retries of a disabled hook', async () => {
      receiver.script('/old-endpoint', () => ({ status: 503 }));
      const hook = await hookAt('/old-endpoint', { movesTo: ['/new-endpoint'] });
      await publish('User.Created');
      await eventually(() => receiver.requests('/old-endpoint')[0]);
      await running.request(`/api/hooks/${hook.id}`, {
        method: 'PATCH',
        json: { config: { url: receiver.url('/new-endpoint') } },
      });
      const delivery = await finished(hook.id);
      expect(delivery.status).to.equal('succeeded');
      expect(receiver.requests('/new-endpoint')[0]?.headers['webhook-id']).to.equal(delivery.id);

      receiver.script('/flapping', () => ({ status: 503 }));
      const other = await hookAt('/flapping');
      await publish('User.Created');
      await eventually(() => receiver.requests('/flapping')[0]);
      await running.request(`/api/hooks/${other.id}`, { method: 'PATCH', json: { enabled: false } });
      const dropped = await finished(other.id);
      expect(dropped).to.include({ status: 'failed', lastError: 'hook disabled' });
    });

    it('never puts a signing key, password, secret or token in a payload', async () => {
      const hook = await hookAt('/secrets', { events: ['User.Created', 'User.Data.Updated'] });
      await running.service.core.bus.publish([
        craftedEvent('User.Data.Updated', {
          data: {
            id: 'u1',
            password: 'hunter2',
            passwordDigest: 'scrypt$...',
            hasPassword: true,
            customData: { clientSecret: 'cs', apiToken: 'tok', signingKey: hook.signingKey, postalCode: '75001' },
            identities: [{ accessToken: 'at', refreshToken: 'rt', code: '123456' }],
          },
        }),
      ]);
      await running.request('/api/roles', { method: 'POST', json: { name: `secret-check-${backend}` } });
      const request = await eventually(() => receiver.requests('/secrets')[0]);
      const payload = verifyDelivery(request, hook.signingKey);
      expect(payload.data).to.deep.equal({
        id: 'u1',
        hasPassword: true,
        customData: { postalCode: '75001' },
        identities: [{}],
      });
      for (const secret of [hook.signingKey, 'whsec_', 'hunter2', 'scrypt', 'tok', '123456']) {
        expect(request.body).to.not.include(secret);
      }
    });
  });
}
