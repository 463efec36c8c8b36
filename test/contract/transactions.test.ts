/**
 * The transaction contract of every DocumentStore backend (embedded always, MongoDB when MONGODB_URI is
 * set, as a replica set): all-or-nothing writes carried by the asynchronous context.
 */
import { expect } from 'chai';
import type { DocumentStore } from '../../lib/ports/documents.ts';
import { forEachBackend } from './support/backends.ts';

forEachBackend('DocumentStore transactions', (backend) => {
  let store: DocumentStore;
  before(async () => {
    store = await backend.open();
    await store.collection('tx_people').createIndex({ keys: { name: 1 }, unique: true });
  });

  async function fails(work: () => Promise<void>): Promise<void> {
    const outcome = await store.transaction(work).then(() => 'committed', (error: Error) => error.message);
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
    expect((await people.find({ _id: { $in: ['c1', 'c2', 'c3'] } }, { sort: { _id: 1 } })).map((doc) => doc.name))
      .to.deep.equal(['committed-1', 'committed-2', 'committed-3']);
    expect(await people.findOne({ _id: 'c1' })).to.deep.include({ age: 3 });
  });

  it('undoes inserts, updates, upserts and deletes when the work fails, and skips what waits for the commit', async () => {
    const people = store.collection('tx_people');
    await people.insertMany([{ _id: 'r1', name: 'kept-1', age: 1 }, { _id: 'r2', name: 'kept-2', age: 2 }]);
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
      { _id: 'r1', name: 'kept-1', age: 1 }, { _id: 'r2', name: 'kept-2', age: 2 },
    ]);
    // The unique index forgot the rolled-back names and still holds the restored ones.
    await people.insertOne({ _id: 'r5', name: 'renamed' });
    await people.insertOne({ _id: 'r6', name: 'rolled-back' });
    const duplicate = await people.insertOne({ _id: 'r7', name: 'kept-2' }).then(() => null, (error: { code?: number }) => error.code);
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
    expect((await people.find({ _id: { $in: ['p1', 'p2', 'p3'] } }, { sort: { _id: 1 } })).map((doc) => doc._id))
      .to.deep.equal(['p1', 'p2']);
  });
});
