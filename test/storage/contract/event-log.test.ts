/**
 * The event log on every document store (memory, SQLite with the log on disk as in production, MongoDB when
 * MONGODB_URI is set): entity versions and the global sequence are taken in the transaction of the change, commit
 * with it or not at all, and a reader following cursors while writers race sees every committed event exactly once.
 */
import { expect } from 'chai';
import { EmbeddedDocumentStore } from '../../../adapters/memory/documents.ts';
import type { Durability } from '../../../adapters/memory/transactions.ts';
import { EventBus } from '../../../lib/events/bus.ts';
import { createEventLog, type EventLog } from '../../../lib/events/event-log.ts';
import { createOutboxRecorder } from '../../../lib/outbox/recorder.ts';
import { createOutboxRepository } from '../../../lib/outbox/repository.ts';
import type { DocumentStore } from '../../../lib/ports/documents.ts';
import { withFakeClock } from '../../support/clock.ts';
import { craftedEvent } from '../../support/events.ts';
import { eventually } from '../../support/wait.ts';
import { forEachBackend } from '../../support/storage/backends.ts';

const RETENTION_MS = 24 * 3600 * 1000;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Listed = { event: string; sequence: number; version?: number; data?: { id?: string; n?: number } };

/** Every event after `after`, following cursors page by page. */
async function readAll(
  log: EventLog,
  after: number | undefined,
  limit = 7,
): Promise<{ events: Listed[]; next: number }> {
  const events: Listed[] = [];
  let cursor = after;
  for (let page = 0; page < 10_000; page += 1) {
    const result = await log.page({ after: cursor, limit, types: undefined });
    events.push(...(result.events as Listed[]));
    const moved = result.next !== cursor;
    cursor = result.next;
    if (result.events.length < limit || !moved) return { events, next: cursor ?? 0 };
  }
  throw new Error('the log never ended');
}

forEachBackend(
  'event log: versions and sequence',
  (backend) => {
    let store: DocumentStore;
    let log: EventLog;
    let bus: EventBus;

    beforeEach(async () => {
      store = await backend.open();
      log = createEventLog(store, { retentionMs: RETENTION_MS });
      await log.prepare();
      const outbox = createOutboxRepository(store);
      await outbox.prepare();
      bus = new EventBus(createOutboxRecorder({ store, outbox, log, wake: () => {} }));
    });

    const change = (id: string, n: number) => craftedEvent('User.Data.Updated', { data: { id, n } });

    it('gives each committed change of an entity the next version, and every event the next sequence', async () => {
      await store.transaction(() => bus.publish([craftedEvent('User.Created', { data: { id: 'u1' } })]));
      await store.transaction(() => bus.publish([change('u1', 1), change('u2', 1)]));
      await store.transaction(() => bus.publish([change('u1', 2)]));
      await store.transaction(() => bus.publish([craftedEvent('Role.Scopes.Updated', { roleId: 'r1', data: [] })]));
      await store.transaction(() => bus.publish([craftedEvent('Role.Data.Updated', { data: { id: 'r1' } })]));
      const { events } = await readAll(log, undefined);
      expect(
        events.map(({ event, sequence, version, data }) => [event, sequence, version, (data as { id?: string }).id]),
      ).to.deep.equal([
        ['User.Created', 1, 1, 'u1'],
        ['User.Data.Updated', 2, 2, 'u1'],
        ['User.Data.Updated', 3, 1, 'u2'],
        ['User.Data.Updated', 4, 3, 'u1'],
        ['Role.Scopes.Updated', 5, 1, undefined],
        ['Role.Data.Updated', 6, 2, 'r1'],
      ]);
    });

    it('puts sequence and version right after createdAt in what it hands to listeners and the outbox', async () => {
      const seen: unknown[] = [];
      bus.subscribe(async (events) => {
        seen.push(...events);
      });
      await store.transaction(() => bus.publish([change('u1', 1)]));
      expect(Object.keys(seen[0] as object)).to.deep.equal(['event', 'createdAt', 'sequence', 'version', 'data']);
      const entries = await createOutboxRepository(store).claim(10, 1000);
      expect(entries[0]!.events[0]).to.deep.include({ sequence: 1, version: 1 });
    });

    it('numbers nothing for a transaction that rolls back: the next commit takes the same numbers', async () => {
      await store.transaction(() => bus.publish([change('u1', 1)]));
      const failed = await store
        .transaction(async () => {
          await bus.publish([change('u1', 2)]);
          store.currentTransaction()!.beforeCommit(async () => {
            throw new Error('aborted after the events were numbered');
          });
        })
        .catch((error: Error) => error.message);
      expect(failed).to.equal('aborted after the events were numbered');
      await store.transaction(() => bus.publish([change('u1', 3)]));
      const { events } = await readAll(log, undefined);
      expect(events.map(({ sequence, version, data }) => [sequence, version, data!.n])).to.deep.equal([
        [1, 1, 1],
        [2, 2, 3],
      ]);
    });

    it('numbers an event published outside any transaction in a transaction of its own', async () => {
      await bus.publish([craftedEvent('Identifier.Lockout', { type: 'email', value: 'a@example.com' })]);
      await bus.publish([change('u1', 1)]);
      const { events } = await readAll(log, undefined);
      expect(events.map(({ event, sequence, version }) => [event, sequence, version])).to.deep.equal([
        ['Identifier.Lockout', 1, undefined],
        ['User.Data.Updated', 2, 1],
      ]);
    });

    it('numbers all a transaction publishes in one step: transactions publishing about the same entities in opposite orders never wait for each other', async () => {
      const org = (id: string) => craftedEvent('Organization.Data.Updated', { data: { id } });
      const both = (first: 'user' | 'org') =>
        store.transaction(async () => {
          const [a, b] = first === 'user' ? [change('u1', 0), org('o1')] : [org('o1'), change('u1', 0)];
          await bus.publish([a]);
          await pause(Math.random() * 5);
          await bus.publish([b]);
        });
      const outcomes = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => both(i % 2 ? 'user' : 'org')));
      expect(
        outcomes
          .filter((outcome) => outcome.status === 'rejected')
          .map((outcome) => String((outcome as PromiseRejectedResult).reason)),
      ).to.deep.equal([]);
      const { events } = await readAll(log, undefined, 100);
      expect(events.map((event) => event.sequence)).to.deep.equal(Array.from({ length: 40 }, (_, i) => i + 1));
      for (const id of ['u1', 'o1']) {
        expect(events.filter((event) => event.data!.id === id).map((event) => event.version)).to.deep.equal(
          Array.from({ length: 20 }, (_, i) => i + 1),
        );
      }
    });

    it('8 concurrent writers with randomly slow transactions: a reader following cursors sees every committed event once, in version order', async function () {
      this.timeout(60_000);
      const writers = 8;
      const perWriter = backend.kind === 'mongodb' ? 5 : 25;
      const entities = ['e0', 'e1', 'e2'];
      let committed = 0;
      let aborted = 0;
      let writing = true;
      // Each writer changes random entities in transactions that sleep a random while before and after publishing, and
      // after the events were numbered; about one in five then aborts.
      const write = async (writer: number) => {
        for (let i = 0; i < perWriter; i += 1) {
          const entity = entities[Math.floor(Math.random() * entities.length)]!;
          const abort = Math.random() < 0.2;
          try {
            await store.transaction(async () => {
              await pause(Math.random() * 15);
              await bus.publish([change(entity, writer * 1000 + i)]);
              await pause(Math.random() * 15);
              // A last step after the numbering one: it aborts the transaction after its numbers were taken, slowly.
              store.currentTransaction()!.beforeCommit(async () => {
                await pause(Math.random() * 5);
                if (abort) throw new Error('aborted on purpose');
              });
            });
            committed += 1;
          } catch (error) {
            // MongoDB fails a transaction whose write conflicts with another's (the sequence is one document).
            if ((error as Error).message !== 'aborted on purpose' && backend.kind !== 'mongodb') throw error;
            aborted += 1;
          }
        }
      };
      const seen: Listed[] = [];
      const read = async () => {
        let cursor: number | undefined;
        while (writing) {
          const page = await readAll(log, cursor, 5);
          seen.push(...page.events);
          cursor = page.next;
          await pause(Math.random() * 5);
        }
        seen.push(...(await readAll(log, cursor, 5)).events);
      };
      const reader = read();
      await Promise.all(Array.from({ length: writers }, (_, writer) => write(writer)));
      writing = false;
      await reader;

      expect(committed + aborted).to.equal(writers * perWriter);
      expect(committed).to.be.greaterThan(0);
      const everything = (await readAll(log, undefined, 1000)).events;
      expect(everything.map((event) => event.sequence)).to.deep.equal(
        Array.from({ length: committed }, (_, i) => i + 1),
      );
      expect(
        seen.map((event) => event.sequence),
        'the reader saw each committed event once, in sequence order',
      ).to.deep.equal(everything.map((event) => event.sequence));
      for (const entity of entities) {
        const versions = seen.filter((event) => event.data!.id === entity).map((event) => event.version);
        expect(versions, `versions of ${entity}`).to.deep.equal(versions.map((_, i) => i + 1));
      }
    });

    it('refuses a cursor beyond the latest event (400) and one whose following events expired (410)', async () => {
      await withFakeClock(async (clock) => {
        await store.transaction(() => bus.publish([change('u1', 1)]));
        await store.transaction(() => bus.publish([change('u1', 2)]));
        const beyond = await log
          .page({ after: 3, limit: 10, types: undefined })
          .catch((error: { code: string }) => error.code);
        expect(beyond).to.equal('event.invalid_cursor');
        clock.advance(RETENTION_MS + 1000);
        await store.transaction(() => bus.publish([change('u1', 3)]));
        const gone = await log
          .page({ after: 0, limit: 10, types: undefined })
          .catch((error: { code: string }) => error.code);
        expect(gone).to.equal('event.cursor_expired');
        const fromTwo = await log.page({ after: 2, limit: 10, types: undefined });
        expect(fromTwo.events.map((event) => event.sequence)).to.deep.equal([3]);
        const fromStart = await log.page({ after: undefined, limit: 10, types: undefined });
        expect(fromStart.events.map((event) => event.sequence)).to.deep.equal([3]);
      });
    });

    it('filters by type and still moves the cursor past what it skipped', async () => {
      await store.transaction(() =>
        bus.publish([change('u1', 1), craftedEvent('Role.Created', { data: { id: 'r1' } }), change('u1', 2)]),
      );
      const roles = await log.page({ after: undefined, limit: 10, types: ['Role.Created'] });
      expect(roles.events.map((event) => event.sequence)).to.deep.equal([2]);
      expect(roles.next).to.equal(3);
      const none = await log.page({ after: 3, limit: 10, types: ['Role.Created'] });
      expect(none).to.deep.equal({ events: [], next: 3 });
    });
  },
  { diskResident: ['events'] },
);

describe('event log on an embedded store whose commits become durable later (the SQLite group commit)', () => {
  it('lists an event only once its commit is durable, and never one whose commit could not be made durable', async () => {
    let gate = Promise.withResolvers<void>();
    const durability: Durability = {
      async persist(changes) {
        const outcome = gate;
        try {
          await outcome.promise;
        } catch (error) {
          for (const change of [...changes].reverse())
            change.collection.restore(change.id, change.after, change.before);
          throw error;
        }
      },
    };
    const store = new EmbeddedDocumentStore({ kind: 'memory', durability });
    const log = createEventLog(store, { retentionMs: RETENTION_MS });
    gate.resolve();
    await log.prepare();
    const bus = new EventBus(
      createOutboxRecorder({ store, outbox: createOutboxRepository(store), log, wake: () => {} }),
    );
    const publish = (n: number) =>
      store.transaction(() => bus.publish([craftedEvent('User.Data.Updated', { data: { id: 'u1', n } })]));

    gate = Promise.withResolvers<void>();
    const committing = publish(1);
    // Applied in memory (another transaction's reads see it), not yet durable.
    await eventually(async () => (await store.collection('events').countDocuments({})) === 1, {
      what: 'the commit applied',
    });
    expect(await log.page({ after: undefined, limit: 10, types: undefined })).to.deep.equal({ events: [], next: 0 });
    gate.resolve();
    await committing;
    expect(
      (await log.page({ after: undefined, limit: 10, types: undefined })).events.map((event) => event.sequence),
    ).to.deep.equal([1]);

    gate = Promise.withResolvers<void>();
    const failing = publish(2).catch((error: Error) => error.message);
    await eventually(async () => (await store.collection('events').countDocuments({})) === 2, {
      what: 'the second commit applied',
    });
    expect((await log.page({ after: 1, limit: 10, types: undefined })).events).to.deep.equal([]);
    gate.reject(new Error('disk full'));
    expect(await failing).to.equal('disk full');
    gate = Promise.withResolvers<void>();
    gate.resolve();
    await publish(3);
    const listed = (await log.page({ after: 1, limit: 10, types: undefined })).events as Listed[];
    expect(listed.map((event) => [event.sequence, event.version, event.data!.n])).to.deep.equal([[2, 2, 3]]);
    await store.close();
  });
});
