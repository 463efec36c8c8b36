/**
 * Indexes change how a backend finds documents, never what it answers: on every backend, a collection with
 * non-unique, compound, descending, multikey and substring indexes answers pages, counts and searches exactly as the
 * same documents answer without any index. Sorts end in `_id` (MongoDB leaves the order of ties open), searches are
 * the shapes the management API builds (Logto's `%text%`, a plain `q`, with and without case).
 */
import { expect } from 'chai';
import type { Doc, DocumentCollection, DocumentStore, Filter, FindOptions } from '../../../lib/ports/documents.ts';
import { forEachBackend } from '../../support/storage/backends.ts';

const NAMES = [
  'Ann Smith',
  'bob SMITHERS',
  'Σίσυφος',
  'ΣΊΣΥΦΟΣ Kelvin',
  'Straße 12',
  'x-ray.team',
  'Jo',
  'ann-marie',
  '%literal_%',
];

function documents(): Doc[] {
  return Array.from({ length: 240 }, (_, n) => {
    const doc: Doc = {
      _id: `p${String(n).padStart(3, '0')}`,
      org: `o${n % 7}`,
      createdAt: 5000 - (n % 37) * 10,
      name: `${NAMES[n % NAMES.length]} ${n}`,
      email: `member${n}@Example.com`,
    };
    if (n % 11 === 0) doc.tags = ['red', n % 2 ? 'blue' : 'green'];
    if (n % 13 === 0) delete doc.email;
    return doc;
  });
}

const like = (text: string) => new RegExp(`^[\\s\\S]*${text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&')}[\\s\\S]*$`, 'i');

const QUERIES: Array<[Filter, FindOptions]> = [
  [{}, { sort: { createdAt: 1, _id: 1 }, skip: 200, limit: 20 }],
  [{ $and: [{}, {}] }, { sort: { createdAt: -1, _id: -1 }, skip: 37, limit: 5 }],
  [{ org: 'o3' }, { sort: { createdAt: -1, _id: -1 }, limit: 10 }],
  [
    { org: 'o3', createdAt: { $gte: 4700 } },
    { sort: { createdAt: -1, _id: -1 }, skip: 2, limit: 10 },
  ],
  [{ org: { $in: ['o1', 'o5'] } }, { sort: { createdAt: 1, _id: 1 }, skip: 10, limit: 10 }],
  [{ tags: 'red' }, { sort: { _id: 1 } }],
  [{ createdAt: { $gt: 4800, $lte: 4900 } }, { sort: { _id: -1 }, limit: 50 }],
  [{ $or: [{ name: like('smith') }, { email: like('smith') }] }, { sort: { createdAt: 1, _id: 1 } }],
  [
    { $and: [{}, { $or: [{ _id: like('p12') }, { name: like('p12') }, { email: like('ER12') }] }] },
    { sort: { createdAt: 1, _id: 1 }, limit: 20 },
  ],
  [{ name: like('σίσ') }, { sort: { _id: 1 } }],
  [{ name: like('ΣΊΣ') }, { sort: { _id: 1 } }],
  [{ name: like('strasse') }, { sort: { _id: 1 } }],
  [{ name: like('%literal_%') }, { sort: { _id: 1 } }],
  [{ name: /x-ray\.team 1/ }, { sort: { _id: 1 } }],
  [{ name: { $regex: 'ann', $options: 'i' }, org: 'o2' }, { sort: { _id: 1 } }],
  [{ name: like('jo') }, { sort: { _id: 1 } }],
  [
    { email: like('@example.com'), createdAt: { $lt: 4700 } },
    { sort: { createdAt: 1, _id: 1 }, skip: 5, limit: 5 },
  ],
];

forEachBackend('indexed queries', (backend) => {
  let store: DocumentStore;
  let plain: DocumentCollection;
  let indexed: DocumentCollection;

  before(async () => {
    store = await backend.open();
    plain = store.collection('people_plain');
    indexed = store.collection('people_indexed');
    await indexed.createIndex({ keys: { org: 1, createdAt: -1 } });
    await indexed.createIndex({ keys: { createdAt: 1 } });
    await indexed.createIndex({ keys: { tags: 1 } });
    for (const field of ['name', 'email'])
      await indexed.createIndex({ keys: { [field]: 1 }, substring: true, name: `${field}_substring` });
    for (const collection of [plain, indexed]) await collection.insertMany(documents());
  });

  async function compareAll(label: string): Promise<void> {
    for (const [filter, options] of QUERIES) {
      const shown = `${label}: ${JSON.stringify(filter, (_, value) => (value instanceof RegExp ? String(value) : value))}`;
      const [expected, actual] = [await plain.find(filter, options), await indexed.find(filter, options)];
      expect(actual, shown).to.deep.equal(expected);
      expect(await indexed.countDocuments(filter), `count ${shown}`).to.equal(await plain.countDocuments(filter));
    }
  }

  it('pages, counts and searches alike with and without indexes', async () => {
    expect((await plain.find(QUERIES[7]![0])).length, 'the search matches some').to.be.above(0);
    await compareAll('as inserted');
  });

  it('still does after updates that move documents between keys, and deletes', async () => {
    for (const collection of [plain, indexed]) {
      await collection.updateMany(
        { org: 'o3', createdAt: { $lt: 4800 } },
        { $set: { org: 'o4', name: 'renamed Smith' }, $inc: { createdAt: 3 } },
      );
      await collection.updateMany({ tags: 'red' }, { $set: { tags: ['blue'] } });
      await collection.deleteMany({ org: 'o1' });
      await collection.insertOne({
        _id: 'late',
        org: 'o3',
        createdAt: 4999,
        name: 'Late Σίσυφος',
        email: 'late@example.com',
      });
    }
    await compareAll('after writes');
  });
});
