import { expect } from 'chai';
import { newId } from '../../../lib/ids.ts';
import type { RunningService } from '../../support/service.ts';
import { BACKENDS, bodyOf, createHook, startHookService } from '../../support/webhooks/hooks.ts';
import { Receiver, eventually, type ReceivedRequest } from '../../support/webhooks/receiver.ts';

const later = <T>(ms: number, value: T) => new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));
const payloadOf = (request: ReceivedRequest) =>
  JSON.parse(request.body) as { event: string; version: number; data: { id: string; username: string } };

for (const backend of BACKENDS) {
  describe(`hooks with ordering "entity" (${backend})`, () => {
    let running: RunningService;
    let receiver: Receiver;
    before(async () => {
      receiver = await Receiver.start();
      running = await startHookService(backend);
    });
    after(async () => {
      await running?.close();
      await receiver?.close();
    });

    async function api(method: string, path: string, json?: unknown) {
      const res = await running.request(`/api${path}`, { method, ...(json === undefined ? {} : { json }) });
      expect(res.status, await res.clone().text()).to.be.within(200, 299);
      return bodyOf(res);
    }

    it("sends one entity's deliveries one at a time in version order, a failing one holding back only that entity", async () => {
      let refusedOnce = false;
      // The slow entity's endpoint is slow, and refuses its first delivery once (a retry); the other entity's is fast.
      receiver.script('/ordered', (_nth, request) => {
        const payload = payloadOf(request);
        if (!payload.data.username.startsWith('slow_')) return { status: 200, body: 'fast' };
        if (!refusedOnce) {
          refusedOnce = true;
          return later(150, { status: 503, body: 'try again' });
        }
        return later(150, { status: 200, body: 'slow' });
      });
      const hook = await createHook(running, {
        ordering: 'entity',
        events: ['User.Created', 'User.Data.Updated'],
        config: { url: receiver.url('/ordered') },
      });
      expect(hook.ordering).to.equal('entity');

      const slow = await api('POST', '/users', { username: `slow_${newId(6)}` });
      await api('PATCH', `/users/${slow.id}`, { name: 'two' });
      await api('PATCH', `/users/${slow.id}`, { name: 'three' });
      const fast = await api('POST', '/users', { username: `fast_${newId(6)}` });
      await api('PATCH', `/users/${fast.id}`, { name: 'fast two' });

      await eventually(
        () => receiver.requests('/ordered').filter((request) => payloadOf(request).data.id === slow.id).length === 4,
        {
          timeoutMs: 15_000,
          what: "the slow entity's three deliveries and one retry",
        },
      );
      const requests = receiver.requests('/ordered');
      const slowOnes = requests.filter((request) => payloadOf(request).data.id === slow.id);
      expect(
        slowOnes.map((request) => payloadOf(request).version),
        'in version order, the refused first one again before the rest',
      ).to.deep.equal([1, 1, 2, 3]);
      // One at a time: each was sent after the previous one was answered (150 ms later).
      for (let i = 1; i < slowOnes.length; i += 1) {
        expect(
          slowOnes[i]!.receivedAt - slowOnes[i - 1]!.receivedAt,
          `request ${i + 1} after ${i} was answered`,
        ).to.be.at.least(140);
      }
      const fastOnes = requests.filter((request) => payloadOf(request).data.id === fast.id);
      expect(fastOnes.map((request) => payloadOf(request).version)).to.deep.equal([1, 2]);
      // The other entity was not held back: it was all delivered while the slow entity's chain (at least 4 × 150 ms
      // answers) was still going.
      expect(fastOnes.at(-1)!.receivedAt).to.be.below(slowOnes.at(-2)!.receivedAt);
    });

    it('takes ordering at creation and on PATCH, "none" by default, and refuses other values', async () => {
      const hook = await createHook(running, { events: ['User.Created'], config: { url: receiver.url('/plain') } });
      expect(hook.ordering).to.equal('none');
      expect((await api('PATCH', `/hooks/${hook.id}`, { ordering: 'entity' })).ordering).to.equal('entity');
      const bad = await running.request(`/api/hooks/${hook.id}`, { method: 'PATCH', json: { ordering: 'global' } });
      expect(bad.status).to.equal(400);
      expect((await bodyOf(bad)).code).to.equal('guard.invalid_input');
    });
  });
}
