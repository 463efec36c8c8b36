/**
 * The embedded document store's TTL expiry, on a fake clock: a document goes when the date it holds now has passed,
 * whatever dates earlier versions of it held, and a TTL index made over documents already stored expires them too.
 */
import { expect } from 'chai';
import { createMemoryDocumentStore } from '../../../adapters/memory/documents.ts';
import type { Doc, DocumentCollection, DocumentStore } from '../../../lib/ports/documents.ts';
import { installFakeClock, type FakeClock } from '../../support/clock.ts';

describe('embedded store: TTL expiry', () => {
  let clock: FakeClock;
  let store: DocumentStore;
  let c: DocumentCollection;
  const at = (ms: number) => new Date(Date.now() + ms);
  const remaining = async () => (await c.find({}, { sort: { _id: 1 } })).map((doc) => doc._id);

  beforeEach(async () => {
    clock = installFakeClock();
    store = createMemoryDocumentStore();
    c = store.collection('expiring');
    await c.createIndex({ keys: { expiresAt: 1 }, expireAfterSeconds: 0 });
  });
  afterEach(async () => {
    clock.uninstall();
    await store.close();
  });

  it('removes each document once its date passes, in any order of insertion, before or after its index', async () => {
    const expiries = new Map<string, number>();
    const docs = Array.from({ length: 300 }, (_, i): Doc => {
      const id = `d${String(i).padStart(3, '0')}`;
      if (i % 10 === 0) return { _id: id };
      const offset = (i * 7919) % 1000;
      expiries.set(id, Date.now() + offset);
      return { _id: id, expiresAt: at(offset) };
    });
    // Half stored before the TTL index exists, half after.
    c = store.collection('indexed-midway');
    await c.insertMany(docs.slice(0, 150));
    await c.createIndex({ keys: { expiresAt: 1 }, expireAfterSeconds: 0 });
    await c.insertMany(docs.slice(150));
    for (let step = 0; step < 11; step += 1) {
      const now = Date.now();
      const alive = [...Array(300).keys()]
        .map((i) => `d${String(i).padStart(3, '0')}`)
        .filter((id) => !expiries.has(id) || expiries.get(id)! > now);
      expect(await remaining(), `at +${step * 100} ms`).to.deep.equal(alive);
      clock.advance(100);
    }
    expect(await c.countDocuments({})).to.equal(30);
  });

  it('keeps every date while thousands of documents come and go in waves', async () => {
    const expiries = new Map<string, number>();
    for (let wave = 0; wave < 4; wave += 1) {
      const docs = Array.from({ length: 2500 }, (_, i): Doc => {
        const id = `w${wave}-${String(i).padStart(4, '0')}`;
        const offset = (i * 7919 + wave * 104_729) % 1000;
        expiries.set(id, Date.now() + offset);
        return { _id: id, expiresAt: at(offset) };
      });
      await c.insertMany(docs);
      // A wave lands while about a quarter of the one before is still there; 250 ms later that one is gone and about
      // three quarters of the new one are left, 500 ms after that about a quarter.
      for (const step of [250, 500]) {
        clock.advance(step);
        const now = Date.now();
        const alive = [...expiries]
          .filter(([, when]) => when > now)
          .map(([id]) => id)
          .sort();
        expect(await remaining(), `wave ${wave}, +${step} ms`).to.deep.equal(alive);
      }
    }
    clock.advance(1000);
    expect(await c.countDocuments({})).to.equal(0);
  });

  it('follows a date an update moves later or earlier, however often a document changes', async () => {
    await c.insertMany([
      { _id: 'later', expiresAt: at(100) },
      { _id: 'earlier', expiresAt: at(500) },
      { _id: 'busy', expiresAt: at(300) },
      { _id: 'undated', expiresAt: at(200) },
    ]);
    await c.updateOne({ _id: 'later' }, { $set: { expiresAt: at(1000) } });
    await c.updateOne({ _id: 'earlier' }, { $set: { expiresAt: at(50) } });
    await c.updateOne({ _id: 'undated' }, { $unset: { expiresAt: '' } });
    // More versions than the store keeps leftover entries for.
    for (let i = 0; i < 3000; i += 1)
      await c.updateOne({ _id: 'busy' }, { $set: { n: i, expiresAt: at(300 + (i % 2)) } });

    clock.advance(60);
    expect(await remaining()).to.deep.equal(['busy', 'later', 'undated']);
    clock.advance(240);
    expect(await remaining()).to.deep.equal(['busy', 'later', 'undated']);
    clock.advance(1);
    expect(await remaining()).to.deep.equal(['later', 'undated']);
    clock.advance(700);
    expect(await remaining()).to.deep.equal(['undated']);
  });

  it('goes at the date it holds now when updated without touching it, moved and moved back, or removed and stored again', async () => {
    await c.insertMany([
      { _id: 'same', expiresAt: at(100) },
      { _id: 'back', expiresAt: at(100) },
      { _id: 'again', expiresAt: at(100) },
      { _id: 'twice', expiresAt: at(100) },
    ]);
    for (let i = 0; i < 50; i += 1) await c.updateOne({ _id: 'same' }, { $set: { n: i } });
    await c.updateOne({ _id: 'back' }, { $set: { expiresAt: at(500) } });
    await c.updateOne({ _id: 'back' }, { $set: { expiresAt: at(100) } });
    await c.deleteOne({ _id: 'again' });
    await c.insertOne({ _id: 'again', expiresAt: at(300) });
    await c.deleteOne({ _id: 'twice' });
    await c.insertOne({ _id: 'twice', expiresAt: at(100) });

    clock.advance(99);
    expect(await remaining()).to.deep.equal(['again', 'back', 'same', 'twice']);
    expect((await c.findOne({ _id: 'same' }))?.n).to.equal(49);
    clock.advance(1);
    expect(await remaining()).to.deep.equal(['again']);
    clock.advance(200);
    expect(await remaining()).to.deep.equal([]);
  });

  it('keeps a version a rolled-back transaction puts back, with the date it held', async () => {
    await c.insertOne({ _id: 'kept', expiresAt: at(100) });
    await store
      .transaction(async () => {
        await c.updateOne({ _id: 'kept' }, { $set: { expiresAt: at(10_000) } });
        throw new Error('rolled back');
      })
      .catch(() => undefined);
    clock.advance(50);
    expect(await remaining()).to.deep.equal(['kept']);
    clock.advance(50);
    expect(await remaining()).to.deep.equal([]);
  });

  it('expires documents stored before their TTL index was made', async () => {
    const other = store.collection('indexed-later');
    await other.insertMany([{ _id: 'due', at: at(-1) }, { _id: 'soon', at: at(100) }, { _id: 'undated' }]);
    await other.createIndex({ keys: { at: 1 }, expireAfterSeconds: 0 });
    expect((await other.find({}, { sort: { _id: 1 } })).map((doc) => doc._id)).to.deep.equal(['soon', 'undated']);
    clock.advance(100);
    expect((await other.find({}, { sort: { _id: 1 } })).map((doc) => doc._id)).to.deep.equal(['undated']);
  });
});
