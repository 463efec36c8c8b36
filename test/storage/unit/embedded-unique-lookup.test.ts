/**
 * The embedded document store answers an equality on a uniquely indexed field from the index (a session by its uid, a
 * user by username): the answers are those a scan gives, through updates, deletions, expiry and rollbacks.
 */
import { expect } from 'chai';
import { createMemoryDocumentStore } from '../../../adapters/memory/documents.ts';
import type { Doc, DocumentCollection, DocumentStore } from '../../../lib/ports/documents.ts';

describe('embedded store: lookups through a unique index', () => {
  let store: DocumentStore;
  let c: DocumentCollection;
  const ids = (docs: Doc[]) => docs.map((doc) => doc._id).sort();

  beforeEach(async () => {
    store = createMemoryDocumentStore();
    c = store.collection('named');
    await c.createIndex({ keys: { name: 1 }, unique: true, sparse: true });
    await c.createIndex({ keys: { expiresAt: 1 }, expireAfterSeconds: 0 });
    await c.insertMany([
      { _id: 'plain', name: 'a' },
      { _id: 'several', name: ['b', 'c'] },
      { _id: 'kind', name: 'd', kind: 'x' },
      { _id: 'unnamed', other: 1 },
      { _id: 'number', name: 5 },
      { _id: 'expired', name: 'e', expiresAt: new Date(Date.now() - 1) },
    ]);
  });
  afterEach(() => store.close());

  it('finds the document holding the string, alone or in an array, and tests the other conditions', async () => {
    expect((await c.findOne({ name: 'a' }))?._id).to.equal('plain');
    expect((await c.findOne({ name: 'c' }))?._id).to.equal('several');
    expect(ids(await c.find({ name: 'd', kind: 'x' }))).to.deep.equal(['kind']);
    expect(await c.find({ name: 'd', kind: 'y' })).to.deep.equal([]);
    expect(await c.countDocuments({ name: 'nobody' })).to.equal(0);
    expect(await c.findOne({ name: 'e' })).to.equal(null);
    // What the index does not serve is still found by a scan.
    expect((await c.findOne({ name: 5 }))?._id).to.equal('number');
    expect(ids(await c.find({ name: { $in: ['a', 'b'] } }))).to.deep.equal(['plain', 'several']);
  });

  it('follows updates, deletions and rolled-back transactions', async () => {
    await c.updateOne({ name: 'a' }, { $set: { name: 'a2' } });
    expect(await c.findOne({ name: 'a' })).to.equal(null);
    expect((await c.findOne({ name: 'a2' }))?._id).to.equal('plain');
    await c.updateOne({ _id: 'several' }, { $set: { name: ['c'] } });
    expect(await c.findOne({ name: 'b' })).to.equal(null);
    expect(await c.deleteOne({ name: 'd' })).to.equal(1);
    expect(await c.findOne({ name: 'd' })).to.equal(null);
    await store
      .transaction(async () => {
        await c.updateOne({ name: 'c' }, { $set: { name: 'c2' } });
        expect((await c.findOne({ name: 'c2' }))?._id).to.equal('several');
        throw new Error('rolled back');
      })
      .catch(() => undefined);
    expect(await c.findOne({ name: 'c2' })).to.equal(null);
    expect((await c.findOne({ name: 'c' }))?._id).to.equal('several');
    expect((await c.updateMany({ name: 'c' }, { $set: { seen: true } })).modifiedCount).to.equal(1);
    expect(await c.countDocuments({ name: 'c', seen: true })).to.equal(1);
  });
});
