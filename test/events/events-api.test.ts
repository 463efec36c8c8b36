/**
 * GET /api/events over HTTP, embedded (SQLite documents, in-process queue) and with Redis (BullMQ): every committed
 * event in sequence order with the entity versions webhooks carry, a cursor that pages through them, the
 * `events:read` scope that allows only this, and stable codes for a malformed (400) or expired (410) cursor.
 */
import { expect } from 'chai';
import { clientCredentialsToken, type RunningService } from '../support/service.ts';
import { newId } from '../../lib/ids.ts';
import { createApplication, createRole } from '../support/fixtures.ts';
import { withFakeClock } from '../support/clock.ts';
import { BACKENDS, bodyOf, createHook, startHookService } from '../support/webhooks/hooks.ts';
import { Receiver, eventually } from '../support/webhooks/receiver.ts';

type Listed = Record<string, any> & { event: string; sequence: number; version?: number };

/** Follows cursors from `after` until a page comes back short, `limit` events a page. */
async function readAll(running: RunningService, after: string | undefined, limit: number, token?: string) {
  const events: Listed[] = [];
  let cursor = after;
  for (let page = 0; page < 1000; page += 1) {
    const query = new URLSearchParams({ limit: String(limit), ...(cursor === undefined ? {} : { after: cursor }) });
    const response = await running.request(`/api/events?${query}`, token ? { token } : {});
    expect(response.status, await response.clone().text()).to.equal(200);
    const body = (await response.json()) as { events: Listed[]; nextCursor: string };
    events.push(...body.events);
    cursor = body.nextCursor;
    if (body.events.length < limit) return { events, cursor };
  }
  throw new Error('the events never ended');
}

/** A user created through the management API (which publishes User.Created). */
async function createUser(running: RunningService, token?: string): Promise<{ id: string }> {
  const res = await running.request('/api/users', {
    method: 'POST',
    json: { username: `user_${newId(8)}` },
    ...(token ? { token } : {}),
  });
  expect(res.status, await res.clone().text()).to.equal(201);
  return (await res.json()) as { id: string };
}

for (const backend of BACKENDS) {
  describe(`GET /api/events (${backend})`, () => {
    let running: RunningService;
    let receiver: Receiver;
    before(async () => {
      receiver = await Receiver.start();
      running = await startHookService(backend, { EVENT_RETENTION_DAYS: '1' });
    });
    after(async () => {
      await running?.close();
      await receiver?.close();
    });

    it('lists every committed event in sequence order, page by page, as webhooks deliver it', async () => {
      const hook = await createHook(running, {
        events: ['User.Created', 'User.Data.Updated'],
        config: { url: receiver.url('/list') },
      });
      const start = (await readAll(running, undefined, 100)).cursor;
      const user = await createUser(running);
      for (const name of ['Ada', 'Grace']) {
        const res = await running.request(`/api/users/${user.id}`, { method: 'PATCH', json: { name } });
        expect(res.status).to.equal(200);
      }
      await createRole(running, []);
      const { events, cursor } = await readAll(running, start, 2);
      expect(events.map((event) => event.event)).to.deep.equal([
        'User.Created',
        'User.Data.Updated',
        'User.Data.Updated',
        'Role.Created',
      ]);
      const first = Number(start);
      expect(events.map((event) => event.sequence)).to.deep.equal([first + 1, first + 2, first + 3, first + 4]);
      expect(events.slice(0, 3).map((event) => [event.data.id, event.version])).to.deep.equal([
        [user.id, 1],
        [user.id, 2],
        [user.id, 3],
      ]);
      expect(events[3]!.version).to.equal(1);
      expect(Object.keys(events[1]!).slice(0, 4)).to.deep.equal(['event', 'createdAt', 'sequence', 'version']);
      expect(events[2]!.data.name).to.equal('Grace');
      expect(cursor).to.equal(String(first + 4));

      // The deliveries of those events carry the same body, plus the hook's id.
      await eventually(() => receiver.requests('/list').length === 3, { what: 'three deliveries' });
      const delivered = receiver
        .requests('/list')
        .map((request) => JSON.parse(request.body) as Listed)
        .sort((a, b) => a.sequence - b.sequence);
      expect(delivered).to.deep.equal(events.slice(0, 3).map((event) => ({ ...event, hookId: hook.id })));
    });

    it('100 concurrent changes of one user: versions 2 to 101 each once, sequences without a gap', async () => {
      const start = (await readAll(running, undefined, 500)).cursor;
      const user = await createUser(running);
      const answers = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          running.request(`/api/users/${user.id}`, {
            method: 'PATCH',
            json: { name: `name ${i}` },
          }),
        ),
      );
      expect(answers.map((answer) => answer.status)).to.deep.equal(answers.map(() => 200));
      const { events } = await readAll(running, start, 500);
      expect(events.map((event) => event.sequence)).to.deep.equal(events.map((_, i) => Number(start) + i + 1));
      const mine = events.filter((event) => event.data?.id === user.id);
      expect(mine.map((event) => event.version)).to.deep.equal(Array.from({ length: 101 }, (_, i) => i + 1));
      // The last version carries the state the last committed change left.
      const current = (await (await running.request(`/api/users/${user.id}`)).json()) as { name: string };
      expect(mine.at(-1)!.data.name).to.equal(current.name);
    });

    it('lists only the types asked for, and moves the cursor past the others', async () => {
      const start = (await readAll(running, undefined, 100)).cursor;
      await createUser(running);
      await createRole(running, []);
      await createUser(running);
      const res = await running.request(`/api/events?after=${start}&types=Role.Created,Role.Deleted`);
      const body = await bodyOf(res);
      expect(res.status).to.equal(200);
      expect(body.events.map((event: Listed) => [event.event, event.sequence])).to.deep.equal([
        ['Role.Created', Number(start) + 2],
      ]);
      expect(body.nextCursor).to.equal(String(Number(start) + 3));
    });

    it('answers 400 event.invalid_cursor for a cursor it never handed out, 400 guard.invalid_input for bad limits and names', async () => {
      const { cursor } = await readAll(running, undefined, 100);
      for (const after of ['abc', '-1', '1.5', '01', ' 1', '1e3', '9'.repeat(16), String(Number(cursor) + 1), '']) {
        const res = await running.request(`/api/events?after=${encodeURIComponent(after)}`);
        expect(res.status, `after=${after}`).to.equal(400);
        expect((await bodyOf(res)).code, `after=${after}`).to.equal('event.invalid_cursor');
      }
      for (const query of [
        'limit=0',
        'limit=501',
        'limit=x',
        'limit=1.5',
        'types=User.Nope',
        `types=${'x,'.repeat(3000)}`,
      ]) {
        const res = await running.request(`/api/events?${query}`);
        expect(res.status, query).to.equal(400);
        expect((await bodyOf(res)).code, query).to.equal('guard.invalid_input');
      }
    });

    it('is readable with the events:read scope, which allows nothing else; other scopes cannot read it', async () => {
      const reader = await createApplication(running, { type: 'MachineToMachine' });
      const role = await createRole(running, ['management-api-events-read'], 'MachineToMachine');
      await running.request(`/api/applications/${reader.id}/roles`, { method: 'POST', json: { roleIds: [role.id] } });
      const token = await clientCredentialsToken(
        running.baseUrl,
        reader.id,
        reader.secret!,
        `${running.baseUrl}/api`,
        'events:read',
      );
      const { events } = await readAll(running, undefined, 500, token);
      expect(events.length).to.be.greaterThan(0);
      for (const path of ['/api/users', '/api/hooks', `/api/hooks/${'x'}/deliveries`, '/api/applications']) {
        expect((await running.request(path, { token })).status, path).to.equal(403);
      }
      expect(
        (await running.request('/api/users', { method: 'POST', token, json: { username: 'nope' } })).status,
      ).to.equal(403);

      const impersonator = await createApplication(running, { type: 'MachineToMachine' });
      const other = await createRole(running, ['management-api-subject-tokens-create'], 'MachineToMachine');
      await running.request(`/api/applications/${impersonator.id}/roles`, {
        method: 'POST',
        json: { roleIds: [other.id] },
      });
      const otherToken = await clientCredentialsToken(
        running.baseUrl,
        impersonator.id,
        impersonator.secret!,
        `${running.baseUrl}/api`,
        'subject-tokens:create',
      );
      const refused = await running.request('/api/events', { token: otherToken });
      expect(refused.status).to.equal(403);
      expect((await bodyOf(refused)).code).to.equal('auth.forbidden');
      expect((await fetch(`${running.baseUrl}/api/events`)).status).to.equal(401);
    });

    it('answers 410 event.cursor_expired once events after the cursor passed EVENT_RETENTION_DAYS, and lists what is left', async () => {
      const { cursor: before } = await readAll(running, undefined, 500);
      await createUser(running);
      await withFakeClock(async (clock) => {
        clock.advance(24 * 3600 * 1000 + 1000);
        const token = await clientCredentialsToken(
          running.baseUrl,
          'test-admin',
          'test-admin-secret-0123456789',
          `${running.baseUrl}/api`,
          'all',
        );
        const user = await createUser(running, token);
        const gone = await running.request(`/api/events?after=${before}`, { token });
        expect(gone.status).to.equal(410);
        expect((await bodyOf(gone)).code).to.equal('event.cursor_expired');
        const { events } = await readAll(running, undefined, 500, token);
        expect(events.map((event) => event.data?.id)).to.deep.equal([user.id]);
        const fromEvent = await readAll(running, String(events[0]!.sequence - 1), 500, token);
        expect(fromEvent.events).to.deep.equal(events);
      });
    });
  });
}
