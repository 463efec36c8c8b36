import { rmSync } from 'node:fs';
import { expect } from 'chai';
import { newId } from '../../../lib/ids.ts';
import type { RunningService } from '../../support/service.ts';
import { craftedEvent } from '../../support/events.ts';
import { tempDataDir } from '../../support/sqlite.ts';
import {
  BACKENDS,
  bodyOf,
  createHook,
  getJson,
  startHookService,
  verifyDelivery,
} from '../../support/webhooks/hooks.ts';
import { Receiver, eventually, type ReceivedRequest } from '../../support/webhooks/receiver.ts';

async function createUser(running: RunningService): Promise<string> {
  const res = await running.request('/api/users', { method: 'POST', json: { username: `replay_${newId(8)}` } });
  expect(res.status).to.equal(201);
  return ((await res.json()) as { id: string }).id;
}

const webhookIds = (requests: ReceivedRequest[]) => requests.map((request) => String(request.headers['webhook-id']));

for (const backend of BACKENDS) {
  describe(`hook replays (${backend})`, () => {
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

    async function replay(hookId: string, json: Record<string, unknown>) {
      const res = await running.request(`/api/hooks/${hookId}/replay`, { method: 'POST', json });
      expect(res.status, await res.clone().text()).to.equal(202);
      const started = await bodyOf(res);
      expect(started.status).to.equal('running');
      return eventually(
        async () => {
          const progress = await getJson(running, `/api/hooks/${hookId}/replays/${started.id}`);
          return progress.status !== 'running' && progress;
        },
        { what: 'the replay finished' },
      );
    }

    it('sends the retained events of a window again with their original webhook-id and body, as a job whose progress is readable', async () => {
      const hook = await createHook(running, {
        events: ['User.Created', 'User.Deleted'],
        config: { url: receiver.url('/window') },
      });
      const since = new Date().toISOString();
      await createUser(running);
      await createUser(running);
      await eventually(() => receiver.requests('/window').length === 2, { what: 'the first deliveries' });
      const until = new Date().toISOString();
      // The window's end is inclusive, to the millisecond: the third event is made once the clock has passed it.
      await eventually(() => Date.now() > Date.parse(until), { what: 'the clock past the window' });
      await createUser(running);
      await eventually(() => receiver.requests('/window').length === 3, { what: 'the third delivery' });
      const first = receiver.requests('/window').slice(0, 2);

      const done = await replay(hook.id, { since, until });
      expect(done).to.include({ status: 'completed', enqueued: 2, kind: 'events', note: null });
      expect(done.events).to.deep.equal(['User.Created', 'User.Deleted']);
      const again = await eventually(
        () => receiver.requests('/window').length === 5 && receiver.requests('/window').slice(3),
      );
      expect(webhookIds(again).sort()).to.deep.equal(webhookIds(first).sort());
      for (const request of again) {
        const original = first.find((candidate) => candidate.headers['webhook-id'] === request.headers['webhook-id'])!;
        expect(verifyDelivery(request, hook.signingKey)).to.deep.equal(verifyDelivery(original, hook.signingKey));
      }
      const deliveries = await getJson<Array<Record<string, unknown>>>(running, `/api/hooks/${hook.id}/deliveries`);
      const replayed = deliveries.filter((delivery) => delivery.replayId === done.id);
      expect(replayed).to.have.length(2);
      for (const delivery of replayed) {
        expect(delivery.id).to.not.equal(delivery.webhookId);
        expect(delivery.resentFrom).to.equal(delivery.webhookId);
      }
      const listed = await getJson<Array<{ id: string }>>(running, `/api/hooks/${hook.id}/replays`);
      expect(listed.map((entry) => entry.id)).to.include(done.id);
    });

    it('replays only the events asked for', async () => {
      const hook = await createHook(running, {
        events: ['User.Created', 'User.Deleted'],
        config: { url: receiver.url('/types') },
      });
      const since = new Date().toISOString();
      const id = await createUser(running);
      expect((await running.request(`/api/users/${id}`, { method: 'DELETE' })).status).to.equal(204);
      await eventually(() => receiver.requests('/types').length === 2);
      const done = await replay(hook.id, { since, events: ['User.Deleted'] });
      expect(done).to.include({ status: 'completed', enqueued: 1 });
      const again = await eventually(() => receiver.requests('/types')[2]);
      expect(JSON.parse(again.body).event).to.equal('User.Deleted');
    });

    it('resends every delivery that failed for good since a date, under its original webhook-id', async () => {
      let refusing = true;
      receiver.script('/failing', () => (refusing ? { status: 400, body: 'no' } : { status: 200, body: 'ok' }));
      const hook = await createHook(running, { events: ['User.Created'], config: { url: receiver.url('/failing') } });
      const since = new Date().toISOString();
      await createUser(running);
      await createUser(running);
      await eventually(
        async () => {
          const deliveries = await getJson<Array<{ status: string }>>(running, `/api/hooks/${hook.id}/deliveries`);
          return deliveries.length === 2 && deliveries.every((delivery) => delivery.status === 'failed');
        },
        { what: 'two failed deliveries' },
      );
      refusing = false;
      const done = await replay(hook.id, { since, failed: true });
      expect(done).to.include({ status: 'completed', enqueued: 2, kind: 'failed' });
      await eventually(() => receiver.requests('/failing').length === 4);
      const [a, b, c, d] = webhookIds(receiver.requests('/failing'));
      expect([c, d].sort()).to.deep.equal([a, b].sort());
      await eventually(
        async () => {
          const deliveries = await getJson<Array<{ status: string; replayId: string | null }>>(
            running,
            `/api/hooks/${hook.id}/deliveries`,
          );
          return (
            deliveries.filter((delivery) => delivery.replayId === done.id && delivery.status === 'succeeded').length ===
            2
          );
        },
        { what: 'the resent deliveries succeeded' },
      );
      // A second failed-replay finds nothing new to resend but the originals (still failed), never the replays.
      const second = await replay(hook.id, { since, failed: true });
      expect(second.enqueued).to.equal(2);
    });

    it('refuses bad windows, events the hook does not take, a disabled hook and an unknown replay', async () => {
      const hook = await createHook(running, { events: ['User.Created'], config: { url: receiver.url('/refusals') } });
      const cases: Array<[Record<string, unknown>, number, string]> = [
        [{}, 400, 'guard.invalid_input'],
        [{ since: 'yesterday' }, 400, 'guard.invalid_input'],
        [{ since: 5 }, 400, 'guard.invalid_input'],
        [{ since: new Date().toISOString(), extra: 1 }, 400, 'guard.invalid_input'],
        [{ since: '2030-01-02T00:00:00Z', until: '2030-01-01T00:00:00Z' }, 400, 'guard.invalid_input'],
        [{ since: new Date().toISOString(), events: ['Role.Created'] }, 400, 'guard.invalid_input'],
        [{ since: new Date().toISOString(), events: ['User.Nope'] }, 400, 'guard.invalid_input'],
      ];
      for (const [json, status, code] of cases) {
        const res = await running.request(`/api/hooks/${hook.id}/replay`, { method: 'POST', json });
        expect(res.status, JSON.stringify(json)).to.equal(status);
        expect((await bodyOf(res)).code, JSON.stringify(json)).to.equal(code);
      }
      expect(
        (await running.request('/api/hooks/nope/replay', { method: 'POST', json: { since: new Date().toISOString() } }))
          .status,
      ).to.equal(404);
      expect((await running.request(`/api/hooks/${hook.id}/replays/rpl_nope`)).status).to.equal(404);
      await running.request(`/api/hooks/${hook.id}`, { method: 'PATCH', json: { enabled: false } });
      const disabled = await running.request(`/api/hooks/${hook.id}/replay`, {
        method: 'POST',
        json: { since: new Date().toISOString() },
      });
      expect(disabled.status).to.equal(422);
      expect((await bodyOf(disabled)).code).to.equal('hook.disabled');
    });
  });
}

describe('hook replays across a restart (SQLite)', () => {
  it('a replay the stopped process left running resumes at the next start and completes', async function () {
    this.timeout(60_000);
    const dataDir = tempDataDir();
    const receiver = await Receiver.start();
    const env = { DATA_DIR: dataDir };
    let first: RunningService | undefined = await startHookService('memory', env);
    let second: RunningService | undefined;
    try {
      const hook = await createHook(first, { events: ['User.Created'], config: { url: receiver.url('/resume') } });
      const since = new Date().toISOString();
      for (let i = 0; i < 1000; i += 1) {
        await first.service.core.bus.publish([craftedEvent('User.Created', { data: { id: `resumed-${i}` } })]);
      }
      const res = await first.request(`/api/hooks/${hook.id}/replay`, { method: 'POST', json: { since } });
      expect(res.status).to.equal(202);
      const { id } = await bodyOf(res);
      // Stopped at once: the replay's steps in hand finish and their progress is stored, the rest waits.
      await first.close();
      first = undefined;
      const restartedAt = Date.now();
      second = await startHookService('memory', env);
      const done = await eventually(
        async () => {
          const replay = await getJson(second!, `/api/hooks/${hook.id}/replays/${id}`);
          return replay.status !== 'running' && replay;
        },
        { timeoutMs: 30_000, what: 'the resumed replay finished' },
      );
      expect(done).to.include({ status: 'completed', enqueued: 1000 });
      expect(done.completedAt, 'completed by the restarted process').to.be.at.least(restartedAt);
    } finally {
      await first?.close();
      await second?.close();
      await receiver.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
