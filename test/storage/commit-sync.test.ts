/**
 * How a commit becomes durable on the SQLite store: with FULL, an `fdatasync` of the WAL off the event loop, a write
 * acknowledged only once it returned, and the writes made during one sync sharing the next commit and sync; a failed
 * sync rejects what it covered. With NORMAL, nothing is synced per commit. The sync stands in for the disk here
 * (`syncFile`), so that a test can hold it. And which journal writes of the durable delivery queue an attempt waits for.
 */
import { expect } from 'chai';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { openSqliteDatabase, type SqliteDatabase } from '../../adapters/sqlite/database.ts';
import { createSqliteDocumentStore } from '../../adapters/sqlite/documents.ts';
import { createMemoryDeliveryQueue } from '../../adapters/memory/delivery-queue.ts';
import { createSqliteDeliveryQueue } from '../../adapters/sqlite/delivery-queue.ts';
import { DurableWriteError } from '../../lib/ports/documents.ts';
import type { DeliveryJob } from '../../lib/ports/queue.ts';
import { tempDataDir } from '../support/sqlite.ts';
import { eventually } from '../support/wait.ts';

/** A stand-in for the disk's sync: each call waits until the test releases (or fails) it. */
function heldSyncs() {
  const calls: Array<{ fd: number; release(): void; fail(error: Error): void }> = [];
  return {
    calls,
    syncFile(fd: number): Promise<void> {
      const { promise, resolve, reject } = Promise.withResolvers<void>();
      calls.push({ fd, release: resolve, fail: reject });
      return promise;
    },
  };
}

/** Whether a promise has settled by now (after the turns already queued ran). */
async function settledYet(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  for (let i = 0; i < 3; i += 1) await nextTurn();
  return settled;
}

describe('SQLite store: how a commit becomes durable', () => {
  let dataDir: string;
  let database: SqliteDatabase | undefined;
  let reader: DatabaseSync | undefined;
  beforeEach(() => {
    dataDir = tempDataDir();
  });
  afterEach(async () => {
    reader?.close();
    reader = undefined;
    await database?.close();
    database = undefined;
    rmSync(dataDir, { recursive: true, force: true });
  });

  const rowsInFile = () => {
    reader ??= new DatabaseSync(join(dataDir, 'identity.sqlite'), { readOnly: true });
    return Number(reader.prepare("SELECT count(*) AS n FROM documents WHERE collection = 'items'").get()!.n);
  };

  it('with FULL, acknowledges a write once the WAL is synced, and the writes made during a sync share the next commit and sync', async () => {
    const syncs = heldSyncs();
    database = openSqliteDatabase({ dataDir, synchronous: 'FULL', syncFile: syncs.syncFile });
    const store = createSqliteDocumentStore(database, { diskResident: [] });
    const items = store.collection('items');

    const first = items.insertOne({ _id: 'a' });
    expect(await settledYet(first), 'not acknowledged before its sync returned').to.equal(false);
    expect(syncs.calls).to.have.length(1);
    expect(rowsInFile(), 'committed to the WAL already').to.equal(1);

    const during = [items.insertOne({ _id: 'b' }), items.insertOne({ _id: 'c' })];
    expect(await settledYet(Promise.race(during))).to.equal(false);
    expect(syncs.calls, 'no second sync while one runs').to.have.length(1);
    expect(rowsInFile(), 'their commit waits for the running sync').to.equal(1);

    syncs.calls[0]!.release();
    await first;
    await eventually(() => syncs.calls.length === 2, { what: 'the second sync' });
    expect(rowsInFile(), 'both in one commit').to.equal(3);
    expect(await settledYet(Promise.race(during))).to.equal(false);
    syncs.calls[1]!.release();
    await Promise.all(during);
    expect(
      syncs.calls.map((call) => call.fd),
      'the WAL file, every time',
    ).to.deep.equal([syncs.calls[0]!.fd, syncs.calls[0]!.fd]);

    const failing = items.insertOne({ _id: 'd' });
    await eventually(() => syncs.calls.length === 3, { what: 'the third sync' });
    syncs.calls[2]!.fail(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' }));
    const error = await failing.then(
      () => null,
      (reason: unknown) => reason,
    );
    expect(error).to.be.instanceOf(DurableWriteError);
    expect((error as Error).message).to.match(/could not write to .*identity\.sqlite: EIO/);

    const after = items.insertOne({ _id: 'e' });
    await eventually(() => syncs.calls.length === 4, { what: 'a sync again' });
    syncs.calls[3]!.release();
    await after;
    await store.close();
  });

  it('with NORMAL, acknowledges a write once committed, without syncing it', async () => {
    const syncs = heldSyncs();
    database = openSqliteDatabase({ dataDir, synchronous: 'NORMAL', syncFile: syncs.syncFile });
    const store = createSqliteDocumentStore(database, { diskResident: [] });
    await Promise.all([
      store.collection('items').insertOne({ _id: 'a' }),
      store.collection('items').insertOne({ _id: 'b' }),
    ]);
    expect(rowsInFile()).to.equal(2);
    expect(syncs.calls).to.deep.equal([]);
    await store.close();
  });

  it("makes an attempt once its start is durable, or, with the documents in the journal's file, without writing a start", async () => {
    const job: DeliveryJob = { deliveryId: 'd1', hookId: 'h', event: 'User.Created', payload: '{}', createdAt: 1 };
    for (const withDocuments of [false, true]) {
      const starts: Array<() => void> = [];
      const queue = createMemoryDeliveryQueue({
        withDocuments,
        journal: {
          added: async () => {},
          started: () => new Promise<void>((resolve) => starts.push(resolve)),
          scheduled: async () => {},
          finished: async () => {},
        },
      });
      const attempts: number[] = [];
      await queue.enqueue([job]);
      await queue.consume(
        async (_job, attempt) => {
          attempts.push(attempt);
          return {};
        },
        { concurrency: 1 },
      );
      if (withDocuments) {
        await eventually(() => attempts.length === 1, { what: 'the attempt made at once' });
        expect(starts, 'no start journalled').to.have.length(0);
      } else {
        await eventually(() => starts.length === 1, { what: 'the start journalled' });
        for (let i = 0; i < 3; i += 1) await nextTurn();
        expect(attempts, 'nothing sent before its start is durable').to.deep.equal([]);
        starts[0]!();
        await eventually(() => attempts.length === 1, { what: 'the attempt made once its start is durable' });
      }
      expect(attempts).to.deep.equal([1]);
      await queue.close();
    }
  });

  it("commits a delivery's record with its job, and its outcome with the job's removal: one sync each", async () => {
    let syncs = 0;
    database = openSqliteDatabase({
      dataDir,
      synchronous: 'FULL',
      syncFile: async () => {
        syncs += 1;
      },
    });
    const store = createSqliteDocumentStore(database, { diskResident: [] });
    const records = store.collection('items');
    const queue = createSqliteDeliveryQueue(database, { withDocuments: true });
    await database.settled();
    const before = syncs;
    const job: DeliveryJob = { deliveryId: 'd1', hookId: 'h', event: 'User.Created', payload: '{}', createdAt: 1 };
    await queue.enqueue([job], () => records.insertOne({ _id: 'd1', status: 'pending' }));
    expect(syncs - before, 'the record and the job: one sync').to.equal(1);
    const jobsInFile = () => Number(reader!.prepare('SELECT count(*) AS n FROM delivery_jobs').get()!.n);
    expect(rowsInFile()).to.equal(1);
    expect(jobsInFile()).to.equal(1);

    const outcome = Promise.withResolvers<void>();
    await queue.consume(
      async () => {
        const recorded = records.updateOne({ _id: 'd1' }, { $set: { status: 'succeeded' } }).then(() => undefined);
        void recorded.then(outcome.resolve, outcome.reject);
        return { recorded };
      },
      { concurrency: 1 },
    );
    await outcome.promise;
    await eventually(() => jobsInFile() === 0, { what: "the job's row removed" });
    expect(await queue.pendingCount(), 'the job forgotten once its outcome is durable').to.equal(0);
    expect(syncs - before, 'the outcome and the removal: one more sync').to.equal(2);
    await queue.close();
  });

  it("gives a finished job's slot to the next job before the journal has removed it", async () => {
    const removals: Array<() => void> = [];
    const queue = createMemoryDeliveryQueue({
      journal: {
        added: async () => {},
        started: async () => {},
        scheduled: async () => {},
        finished: () => new Promise<void>((resolve) => removals.push(resolve)),
      },
    });
    const job = (n: number): DeliveryJob => ({
      deliveryId: `d${n}`,
      hookId: 'h',
      event: 'User.Created',
      payload: JSON.stringify({ n }),
      createdAt: n,
    });
    const processed: string[] = [];
    await queue.enqueue([job(1), job(2), job(3)]);
    await queue.consume(
      async (delivered) => {
        processed.push(delivered.deliveryId);
        return {};
      },
      { concurrency: 1 },
    );
    await eventually(() => processed.length === 3, { what: 'every job processed, one slot' });
    expect(processed).to.deep.equal(['d1', 'd2', 'd3']);
    expect(removals, 'each removal asked for, none yet done').to.have.length(3);
    for (const release of removals) release();
    await queue.close();
  });
});
