/**
 * The transaction contract of every DocumentStore backend (embedded always, MongoDB when MONGODB_URI is
 * set, as a replica set): all-or-nothing writes carried by the asynchronous context.
 */
import { expect } from 'chai';
import type { DocumentStore } from '../../../lib/ports/documents.ts';
import { forEachBackend } from '../../support/storage/backends.ts';

forEachBackend('DocumentStore transactions', (backend) => {
  let store: DocumentStore;
  before(async () => {
    store = await backend.open();
    await store.collection('tx_people').createIndex({ keys: { name: 1 }, unique: true });
  });

  async function fails(work: () => Promise<void>): Promise<void> {
    const outcome = await store.transaction(work).then(
      () => 'committed',
      (error: Error) => error.message,
    );
    expect(outcome).to.equal('aborted on purpose');
  }

  it('commits every write together, then runs what waits for the commit outside the transaction', async () => {
    const people = store.collection('tx_people');
    const seen: Array<string | boolean> = [];
    await store.transaction(async () => {
      await people.insertOne({ _id: 'c1', name: 'committed-1' });
      await people.updateOne({ _id: 'c1' }, { $set: { age: 3 } });
      await people.insertOne({ _id: 'c2', name: 'committed-2' });
      store.currentTransaction()!.beforeCommit(async () => {
        seen.push('last step');
        await people.insertOne({ _id: 'c3', name: 'committed-3' });
      });
      store.currentTransaction()!.afterCommit(() => {
        seen.push('after', store.currentTransaction() === undefined);
      });
      expect(seen).to.deep.equal([]);
    });
    expect(seen).to.deep.equal(['last step', 'after', true]);
    expect(
      (await people.find({ _id: { $in: ['c1', 'c2', 'c3'] } }, { sort: { _id: 1 } })).map((doc) => doc.name),
    ).to.deep.equal(['committed-1', 'committed-2', 'committed-3']);
    expect(await people.findOne({ _id: 'c1' })).to.deep.include({ age: 3 });
  });

  it('undoes inserts, updates, upserts and deletes when the work fails, and skips what waits for the commit', async () => {
    const people = store.collection('tx_people');
    await people.insertMany([
      { _id: 'r1', name: 'kept-1', age: 1 },
      { _id: 'r2', name: 'kept-2', age: 2 },
    ]);
    let afterCommit = false;
    await fails(async () => {
      await people.insertOne({ _id: 'r3', name: 'rolled-back' });
      await people.updateOne({ _id: 'r1' }, { $set: { name: 'renamed' }, $inc: { age: 10 } });
      await people.updateOne({ _id: 'r4' }, { $setOnInsert: { name: 'upserted' } }, { upsert: true });
      await people.deleteOne({ _id: 'r2' });
      store.currentTransaction()!.afterCommit(() => {
        afterCommit = true;
      });
      throw new Error('aborted on purpose');
    });
    expect(afterCommit).to.equal(false);
    expect(await people.find({ _id: { $in: ['r1', 'r2', 'r3', 'r4'] } }, { sort: { _id: 1 } })).to.deep.equal([
      { _id: 'r1', name: 'kept-1', age: 1 },
      { _id: 'r2', name: 'kept-2', age: 2 },
    ]);
    // The unique index forgot the rolled-back names and still holds the restored ones.
    await people.insertOne({ _id: 'r5', name: 'renamed' });
    await people.insertOne({ _id: 'r6', name: 'rolled-back' });
    const duplicate = await people.insertOne({ _id: 'r7', name: 'kept-2' }).then(
      () => null,
      (error: { code?: number }) => error.code,
    );
    expect(duplicate).to.equal(11000);
  });

  it('aborts when a last step fails', async () => {
    const people = store.collection('tx_people');
    await fails(async () => {
      await people.insertOne({ _id: 'l1', name: 'last-step' });
      store.currentTransaction()!.beforeCommit(async () => {
        throw new Error('aborted on purpose');
      });
    });
    expect(await people.findOne({ _id: 'l1' })).to.equal(null);
  });

  it('joins an enclosing transaction, and keeps writes made outside it', async () => {
    const people = store.collection('tx_people');
    await fails(async () => {
      await store.transaction(async () => {
        await people.insertOne({ _id: 'n1', name: 'nested' });
      });
      await store.outsideTransaction(async () => {
        expect(store.currentTransaction()).to.equal(undefined);
        await people.insertOne({ _id: 'n2', name: 'outside' });
      });
      throw new Error('aborted on purpose');
    });
    expect(await people.findOne({ _id: 'n1' })).to.equal(null);
    expect(await people.findOne({ _id: 'n2' })).to.deep.equal({ _id: 'n2', name: 'outside' });
  });

  it('keeps concurrent transactions apart: one aborting leaves the other committed', async () => {
    const people = store.collection('tx_people');
    const slow = store.transaction(async () => {
      await people.insertOne({ _id: 'p1', name: 'parallel-1' });
      await new Promise((resolve) => setImmediate(resolve));
      await people.insertOne({ _id: 'p2', name: 'parallel-2' });
    });
    const failing = fails(async () => {
      await people.insertOne({ _id: 'p3', name: 'parallel-3' });
      await new Promise((resolve) => setImmediate(resolve));
      throw new Error('aborted on purpose');
    });
    await Promise.all([slow, failing]);
    expect(
      (await people.find({ _id: { $in: ['p1', 'p2', 'p3'] } }, { sort: { _id: 1 } })).map((doc) => doc._id),
    ).to.deep.equal(['p1', 'p2']);
  });
});

/**
 * Isolation: what a transaction writes is invisible to everyone else until it commits, and concurrent writers of one
 * document or unique key never lose or duplicate a write. The embedded stores make a second writer wait (read
 * committed); MongoDB fails it with a transient write conflict, so there only committed transactions count.
 */
forEachBackend('DocumentStore transaction isolation', (backend) => {
  let store: DocumentStore;
  const embedded = backend.kind !== 'mongodb';
  before(async () => {
    store = await backend.open();
    await store.collection('iso_people').createIndex({ keys: { email: 1 }, unique: true });
  });

  /** A transaction that does `work`, then holds until `release` is called, then commits (or fails, if told to). */
  function held(work: () => Promise<void>, outcome: () => void = () => {}) {
    const gate = Promise.withResolvers<void>();
    const written = Promise.withResolvers<void>();
    const done = store.transaction(async () => {
      await work();
      written.resolve();
      await gate.promise;
      outcome();
    });
    return { started: written.promise, release: () => gate.resolve(), done };
  }

  it('shows nothing of an open transaction to anyone else, and everything once it committed', async () => {
    const people = store.collection('iso_people');
    await people.insertOne({ _id: 'i1', email: 'i1@example.com', n: 1 });
    const open = held(async () => {
      await people.insertOne({ _id: 'i2', email: 'i2@example.com', n: 2 });
      await people.updateOne({ _id: 'i1' }, { $set: { n: 10 } });
    });
    await open.started;
    expect(await people.findOne({ _id: 'i2' })).to.equal(null);
    expect(await people.findOne({ email: 'i2@example.com' })).to.equal(null);
    expect(await people.findOne({ _id: 'i1' })).to.deep.include({ n: 1 });
    expect(await people.countDocuments({ _id: { $in: ['i1', 'i2'] } })).to.equal(1);
    await store.transaction(async () => {
      expect(await people.findOne({ _id: 'i2' }), 'another transaction').to.equal(null);
    });
    open.release();
    await open.done;
    expect(await people.findOne({ _id: 'i2' })).to.deep.include({ n: 2 });
    expect(await people.findOne({ _id: 'i1' })).to.deep.include({ n: 10 });
  });

  it('reads its own writes: inserts, updates and deletes, by id, by unique key and by scan', async () => {
    const people = store.collection('iso_people');
    await people.insertMany([
      { _id: 'o1', email: 'o1@example.com', n: 1 },
      { _id: 'o2', email: 'o2@example.com', n: 2 },
    ]);
    await store.transaction(async () => {
      await people.insertOne({ _id: 'o3', email: 'o3@example.com', n: 3 });
      await people.updateOne({ _id: 'o1' }, { $set: { email: 'o1-new@example.com' }, $inc: { n: 100 } });
      await people.deleteOne({ _id: 'o2' });
      expect(await people.findOne({ email: 'o3@example.com' })).to.deep.include({ _id: 'o3' });
      expect(await people.findOne({ email: 'o1-new@example.com' })).to.deep.include({ _id: 'o1', n: 101 });
      expect(await people.findOne({ email: 'o1@example.com' }), 'the old key is gone').to.equal(null);
      expect(await people.findOne({ _id: 'o2' })).to.equal(null);
      const seen = await people.find({ _id: { $in: ['o1', 'o2', 'o3'] } }, { sort: { n: 1 } });
      expect(seen.map((doc) => doc._id)).to.deep.equal(['o3', 'o1']);
      expect(await people.countDocuments({ n: { $gte: 3 } })).to.be.at.least(2);
      // The key o1 gave up is free for a document of this same transaction.
      await people.insertOne({ _id: 'o4', email: 'o1@example.com' });
    });
    expect(
      (await people.find({ _id: { $in: ['o1', 'o2', 'o3', 'o4'] } }, { sort: { _id: 1 } })).map((doc) => doc.email),
    ).to.deep.equal(['o1-new@example.com', 'o3@example.com', 'o1@example.com']);
  });

  it('leaves nothing of an aborted transaction, and showed nothing of it while it ran', async () => {
    const people = store.collection('iso_people');
    await people.insertOne({ _id: 'a1', email: 'a1@example.com', n: 1 });
    const open = held(
      async () => {
        await people.insertOne({ _id: 'a2', email: 'a2@example.com' });
        await people.deleteOne({ _id: 'a1' });
      },
      () => {
        throw new Error('aborted on purpose');
      },
    );
    const aborted = open.done.then(
      () => 'committed',
      (error: Error) => error.message,
    );
    await open.started;
    expect(await people.findOne({ _id: 'a1' }), 'the delete is not visible').to.deep.include({ n: 1 });
    open.release();
    expect(await aborted).to.equal('aborted on purpose');
    expect(await people.findOne({ _id: 'a2' })).to.equal(null);
    expect(await people.findOne({ _id: 'a1' })).to.deep.include({ n: 1 });
    await people.insertOne({ _id: 'a3', email: 'a2@example.com' });
  });

  it('sums the $inc of 100 concurrent transactions on one document', async () => {
    const counters = store.collection('iso_counters');
    await counters.insertOne({ _id: 'c', n: 0 });
    const outcomes = await Promise.allSettled(
      Array.from({ length: 100 }, () =>
        store.transaction(async () => {
          await counters.updateOne({ _id: 'c' }, { $inc: { n: 1 } });
          // Holds the document across a turn of the event loop, so that the others meet its lock.
          await new Promise((resolve) => setImmediate(resolve));
          await counters.updateOne({ _id: 'c' }, { $push: { by: 1 } });
        }),
      ),
    );
    const committed = outcomes.filter((outcome) => outcome.status === 'fulfilled').length;
    if (embedded) expect(committed, 'every writer waited its turn').to.equal(100);
    const doc = await counters.findOne({ _id: 'c' });
    expect(doc).to.deep.include({ n: committed });
    expect(doc!.by).to.have.length(committed);
  });

  it('lets a write outside any transaction wait for a transaction that holds the document, then apply on top', async () => {
    const counters = store.collection('iso_counters');
    await counters.insertOne({ _id: 'w', n: 0 });
    const open = held(async () => {
      await counters.updateOne({ _id: 'w' }, { $inc: { n: 5 } });
    });
    await open.started;
    const outside = counters.updateOne({ _id: 'w' }, { $inc: { n: 1 } });
    await new Promise((resolve) => setImmediate(resolve));
    open.release();
    const outcomes = await Promise.allSettled([open.done, outside]);
    const applied = (outcomes[0].status === 'fulfilled' ? 5 : 0) + (outcomes[1].status === 'fulfilled' ? 1 : 0);
    if (embedded) expect(applied).to.equal(6);
    expect(await counters.findOne({ _id: 'w' })).to.deep.include({ n: applied });
  });

  it('lets exactly one of two transactions inserting one unique key commit', async () => {
    const people = store.collection('iso_people');
    const first = held(async () => {
      await people.insertOne({ _id: 'u1', email: 'unique@example.com' });
    });
    await first.started;
    const second = store.transaction(async () => {
      await people.insertOne({ _id: 'u2', email: 'unique@example.com' });
    });
    const secondOutcome = await second.then(
      () => null,
      (error: { code?: number; hasErrorLabel?: (label: string) => boolean }) => error,
    );
    first.release();
    await first.done;
    expect(secondOutcome, 'the second insert fails').to.not.equal(null);
    if (embedded) expect(secondOutcome!.code, 'at once, as a duplicate key').to.equal(11000);
    expect((await people.find({ email: 'unique@example.com' })).map((doc) => doc._id)).to.deep.equal(['u1']);
  });

  it('lets concurrent upserts of one new document all apply', async () => {
    const counters = store.collection('iso_counters');
    const outcomes = await Promise.allSettled(
      Array.from({ length: 20 }, () =>
        store.transaction(async () => {
          await counters.updateOne({ _id: 'fresh' }, { $inc: { n: 1 } }, { upsert: true });
          await new Promise((resolve) => setImmediate(resolve));
        }),
      ),
    );
    const committed = outcomes.filter((outcome) => outcome.status === 'fulfilled').length;
    if (embedded) expect(committed).to.equal(20);
    expect(await counters.findOne({ _id: 'fresh' })).to.deep.include({ n: committed });
  });

  it('fails one of two transactions that wait for each other with a transient error, and commits the other', async () => {
    const counters = store.collection('iso_counters');
    await counters.insertMany([
      { _id: 'x', n: 0 },
      { _id: 'y', n: 0 },
    ]);
    const both = Promise.withResolvers<void>();
    let locked = 0;
    const cross = (first: string, second: string) =>
      store.transaction(async () => {
        await counters.updateOne({ _id: first }, { $inc: { n: 1 } });
        locked += 1;
        if (locked === 2) both.resolve();
        await both.promise;
        await counters.updateOne({ _id: second }, { $inc: { n: 1 } });
      });
    const outcomes = await Promise.allSettled([cross('x', 'y'), cross('y', 'x')]);
    const failed = outcomes.filter((outcome) => outcome.status === 'rejected');
    expect(failed, 'one side gives way').to.have.length(1);
    const reason = (failed[0] as PromiseRejectedResult).reason as { hasErrorLabel?: (label: string) => boolean };
    expect(reason.hasErrorLabel?.('TransientTransactionError'), String(reason)).to.equal(true);
    const docs = await counters.find({ _id: { $in: ['x', 'y'] } }, { sort: { _id: 1 } });
    expect(
      docs.map((doc) => doc.n),
      'only the committed transaction counted',
    ).to.deep.equal([1, 1]);
  });
});
