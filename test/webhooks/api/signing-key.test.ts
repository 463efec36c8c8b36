import { expect } from 'chai';
import { craftedEvent } from '../../support/events.ts';
import { Webhook } from 'standardwebhooks';
import type { RunningService } from '../../support/service.ts';
import { withFakeClock } from '../../support/clock.ts';
import { bodyOf, createHook, getJson, startHookService, verifyDelivery } from '../../support/webhooks/hooks.ts';
import { Receiver, eventually, type ReceivedRequest } from '../../support/webhooks/receiver.ts';

const headersOf = (request: ReceivedRequest) =>
  Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)]));

describe('hooks API: signing-key rotation', () => {
  let receiver: Receiver;
  const services: RunningService[] = [];

  before(async () => {
    receiver = await Receiver.start();
  });
  after(async () => {
    for (const running of services) await running.close();
    await receiver.close();
  });

  async function start(graceSeconds: string) {
    const running = await startHookService('memory', { WEBHOOK_SIGNING_KEY_GRACE_SECONDS: graceSeconds });
    services.push(running);
    return running;
  }

  async function rotate(running: RunningService, id: string) {
    const response = await running.request(`/api/hooks/${id}/signing-key`, { method: 'PATCH' });
    expect(response.status).to.equal(200);
    return bodyOf(response);
  }

  async function deliverOne(running: RunningService, path: string): Promise<ReceivedRequest> {
    const before = receiver.requests(path).length;
    await running.service.core.bus.publish([craftedEvent('User.Created', { data: { id: 'u1' } })]);
    return eventually(() => receiver.requests(path)[before]);
  }

  it('returns a new key, and signs with both keys during the grace period', async () => {
    const running = await start('3600');
    const hook = await createHook(running, { events: ['User.Created'], config: { url: receiver.url('/grace') } });
    const rotated = await rotate(running, hook.id);
    expect(rotated.signingKey)
      .to.match(/^whsec_/)
      .and.not.equal(hook.signingKey);
    expect(rotated).to.include({ id: hook.id, enabled: true });
    expect(await getJson(running, `/api/hooks/${hook.id}`)).to.not.have.property('signingKey');

    const request = await deliverOne(running, '/grace');
    expect(String(request.headers['webhook-signature']).split(' ')).to.have.length(2);
    // Consumers holding either key verify; Logto's single signature uses the new key.
    verifyDelivery(request, rotated.signingKey);
    expect(new Webhook(hook.signingKey).verify(request.body, headersOf(request))).to.have.property('hookId', hook.id);
  });

  it('stops signing with the previous key once the grace period is over', () =>
    withFakeClock(async (clock) => {
      const running = await start('3600');
      const hook = await createHook(running, { events: ['User.Created'], config: { url: receiver.url('/expiring') } });
      const rotated = await rotate(running, hook.id);
      clock.advance(3_600_000 - 1);
      const last = await deliverOne(running, '/expiring');
      expect(
        String(last.headers['webhook-signature']).split(' '),
        'a millisecond before the grace ends',
      ).to.have.length(2);
      expect(new Webhook(hook.signingKey).verify(last.body, headersOf(last))).to.have.property('hookId', hook.id);

      clock.advance(1);
      const request = await deliverOne(running, '/expiring');
      verifyDelivery(request, rotated.signingKey);
      expect(String(request.headers['webhook-signature']).split(' ')).to.have.length(1);
      expect(() => new Webhook(hook.signingKey).verify(request.body, headersOf(request))).to.throw();
    }));

  it('with no grace period, signs with the new key only', async () => {
    const running = await start('0');
    const hook = await createHook(running, { events: ['User.Created'], config: { url: receiver.url('/no-grace') } });
    const rotated = await rotate(running, hook.id);
    const request = await deliverOne(running, '/no-grace');
    verifyDelivery(request, rotated.signingKey);
    expect(() => new Webhook(hook.signingKey).verify(request.body, headersOf(request))).to.throw();
  });

  it('keeps every key still in grace across rotations in quick succession', async () => {
    const running = await start('3600');
    const hook = await createHook(running, { events: ['User.Created'], config: { url: receiver.url('/twice') } });
    const second = await rotate(running, hook.id);
    const third = await rotate(running, hook.id);
    const request = await deliverOne(running, '/twice');
    verifyDelivery(request, third.signingKey);
    for (const key of [hook.signingKey, second.signingKey]) {
      expect(() => new Webhook(key).verify(request.body, headersOf(request))).to.not.throw();
    }
  });

  it('keeps a single key under concurrent rotations, with the others in grace', async () => {
    const running = await start('3600');
    const hook = await createHook(running, { events: ['User.Created'], config: { url: receiver.url('/concurrent') } });
    const results = await Promise.all([rotate(running, hook.id), rotate(running, hook.id)]);
    const request = await deliverOne(running, '/concurrent');
    for (const key of [hook.signingKey, ...results.map((r) => r.signingKey)]) {
      expect(() => new Webhook(key).verify(request.body, headersOf(request))).to.not.throw();
    }
  });
});
