/**
 * The embedded document store's order where MongoDB leaves it open: documents that tie on every sort key come in the
 * order they were inserted, on a whole result and on every page of it alike.
 */
import { expect } from 'chai';
import { createMemoryDocumentStore } from '../../../adapters/memory/documents.ts';
import type { Doc } from '../../../lib/ports/documents.ts';

describe('embedded store: ties keep insertion order', () => {
  it('on every page, for pages picked from a large collection as for whole results', async () => {
    const store = createMemoryDocumentStore();
    const c = store.collection('ties');
    // Three values, many documents each, inserted out of order of their values.
    await c.insertMany(Array.from({ length: 300 }, (_, i): Doc => ({ _id: `d${i}`, k: (i * 7) % 3, n: i })));
    const ids = (docs: Doc[]) => docs.map((doc) => doc._id);
    const inserted = (k: number) =>
      Array.from({ length: 300 }, (_, i) => i)
        .filter((i) => (i * 7) % 3 === k)
        .map((i) => `d${i}`);

    expect(ids(await c.find({}, { sort: { k: 1 } }))).to.deep.equal([...inserted(0), ...inserted(1), ...inserted(2)]);
    expect(ids(await c.find({}, { sort: { k: -1 } }))).to.deep.equal([...inserted(2), ...inserted(1), ...inserted(0)]);
    for (const [skip, limit] of [
      [0, 1],
      [0, 10],
      [95, 10],
      [0, 70],
      [150, 20],
    ] as const) {
      expect(ids(await c.find({}, { sort: { k: 1 }, skip, limit })), `${skip}+${limit}`).to.deep.equal(
        [...inserted(0), ...inserted(1), ...inserted(2)].slice(skip, skip + limit),
      );
    }
    expect((await c.findOne({}, { sort: { k: -1 } }))?._id).to.equal(inserted(2)[0]);
    const updated = await c.findOneAndUpdate(
      {},
      { $set: { picked: true } },
      { sort: { k: 1 }, returnDocument: 'after' },
    );
    expect(updated).to.include({ _id: inserted(0)[0], picked: true });
    await store.close();
  });
});
