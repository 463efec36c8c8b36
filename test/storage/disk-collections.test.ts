/**
 * A disk-resident collection of the SQLite store answers every query as an in-memory collection does: the same
 * documents, queries and writes are run on both, and every answer compared. SQL only picks candidates; the answers
 * come from the same filter compiler, so they must be identical, whether SQL narrowed, sorted and cut the page or
 * a JS scan had to (fields holding arrays, sorts on fields without an index).
 */
import { expect } from 'chai';
import { createMemoryDocumentStore } from '../../adapters/memory/documents.ts';
import { createSqliteDocumentStore } from '../../adapters/sqlite/documents.ts';
import type { Doc, DocumentCollection, DocumentStore, Filter, FindOptions } from '../../lib/ports/documents.ts';
import { openTempDatabase } from '../support/sqlite.ts';

const HOOKS = ['h1', 'h2', 'h3'];
const EVENTS = ['User.Created', 'User.Deleted', 'Role.Created'];

/** Deterministic documents: the same on both stores. */
function documents(count: number, from: number): Doc[] {
  let seed = from + 1;
  const next = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed;
  };
  return Array.from({ length: count }, (_, i) => {
    const n = from + i;
    const doc: Doc = {
      _id: `d${String(n).padStart(4, '0')}`,
      hookId: HOOKS[next() % HOOKS.length],
      deliveryId: `dlv_${next() % 40}`,
      event: EVENTS[next() % EVENTS.length],
      createdAt: 1_000 + (next() % 200),
      succeeded: next() % 2 === 0,
      expiresAt: new Date(Date.now() + (next() % 10 === 0 ? -60_000 : 3_600_000)),
    };
    if (n % 17 === 0) delete doc.createdAt;
    if (n % 23 === 0) doc.createdAt = null;
    if (n % 29 === 0) doc.createdAt = `text-${n}`;
    return doc;
  });
}

const QUERIES: Array<[Filter, FindOptions]> = [
  [{}, {}],
  [{ hookId: 'h1' }, {}],
  [{ hookId: 'h2' }, { sort: { createdAt: -1, _id: -1 }, skip: 3, limit: 7 }],
  [
    { hookId: 'h1', createdAt: { $gte: 1_050 } },
    { sort: { createdAt: -1, _id: -1 }, limit: 10 },
  ],
  [
    { hookId: 'h3', createdAt: { $gte: 1_020, $lt: 1_150 }, event: 'User.Created' },
    { sort: { createdAt: 1 }, skip: 2, limit: 5 },
  ],
  [{ hookId: { $in: ['h1', 'h3'] }, succeeded: true }, { sort: { createdAt: 1, _id: 1 } }],
  [{ deliveryId: 'dlv_7' }, { sort: { createdAt: 1 } }],
  [{ _id: { $in: ['d0003', 'd0010', 'd9999', 'd0042'] } }, { projection: { _id: 1, hookId: 1 } }],
  [{ _id: 'd0005', hookId: { $exists: true } }, {}],
  [{ createdAt: null }, { sort: { _id: -1 } }],
  [{ createdAt: { $gt: 'text' } }, {}],
  [{ expiresAt: { $gt: new Date() } }, { sort: { expiresAt: 1, _id: 1 }, limit: 15 }],
  // A bound on the TTL field that leaves expired rows out by itself, as a reader's `expiresAt > now` does.
  [
    { hookId: 'h1', expiresAt: { $gt: new Date(Date.now() + 600_000) } },
    { sort: { createdAt: -1, _id: -1 }, limit: 10 },
  ],
  [{ hookId: 'h2', createdAt: { $gte: 1_010 }, expiresAt: { $gte: new Date(Date.now() + 600_000) } }, {}],
  [{ $or: [{ hookId: 'h1' }, { event: 'Role.Created' }] }, { sort: { event: 1, createdAt: -1 }, limit: 20 }],
  [
    { hookId: 'h2', $and: [{ createdAt: { $gte: 1_010 } }, { event: { $ne: 'User.Deleted' } }] },
    { sort: { createdAt: -1 } },
  ],
  [{ event: /Created$/ }, { sort: { succeeded: -1, createdAt: 1 }, skip: 5, limit: 10 }],
  [{ hookId: 'h1' }, { sort: { createdAt: -1 }, skip: 1_000, limit: 5 }],
  [{ hookId: 'h2' }, { limit: -3 }],
];

// Also with inserted documents kept in memory, fewer than are inserted (the oldest are forgotten on the way).
for (const keepInserted of [0, 64]) {
  describe(`SQLite store: disk-resident collections answer as in-memory ones do${keepInserted ? ', inserts kept in memory' : ''}`, () => {
    let memory: DocumentStore;
    let disk: DocumentStore;
    let remove: () => Promise<void>;
    let inMemory: DocumentCollection;
    let onDisk: DocumentCollection;

    before(async () => {
      memory = createMemoryDocumentStore();
      const temp = openTempDatabase();
      remove = temp.remove;
      disk = createSqliteDocumentStore(temp.database, {
        diskResident: ['items'],
        keepInserted: { items: keepInserted },
      });
      inMemory = memory.collection('items');
      onDisk = disk.collection('items');
      for (const collection of [inMemory, onDisk]) {
        await collection.createIndex({ keys: { hookId: 1, createdAt: -1 } });
        await collection.createIndex({ keys: { deliveryId: 1 } });
        await collection.createIndex({ keys: { expiresAt: 1 }, expireAfterSeconds: 0 });
      }
    });
    after(async () => {
      await disk.close();
      await remove();
    });

    async function both<R>(work: (collection: DocumentCollection) => Promise<R>): Promise<[R, R]> {
      return [await work(inMemory), await work(onDisk)];
    }

    async function compareAll(label: string): Promise<void> {
      for (const [filter, options] of QUERIES) {
        const [expected, actual] = await both((collection) => collection.find(filter, options));
        expect(actual, `${label}: find ${JSON.stringify(filter)} ${JSON.stringify(options)}`).to.deep.equal(expected);
        const [expectedCount, actualCount] = await both((collection) => collection.countDocuments(filter));
        expect(actualCount, `${label}: count ${JSON.stringify(filter)}`).to.equal(expectedCount);
        const [expectedOne, actualOne] = await both((collection) => collection.findOne(filter, { sort: options.sort }));
        expect(actualOne, `${label}: findOne ${JSON.stringify(filter)}`).to.deep.equal(expectedOne);
      }
    }

    it('finds, sorts, pages and counts alike over scalar fields, with expired documents invisible', async () => {
      const docs = documents(400, 0);
      await both((collection) => collection.insertMany(structuredClone(docs)));
      expect((await onDisk.find({})).length, 'some documents had expired').to.be.below(400);
      await compareAll('scalar');
    });

    it('applies updates, upserts and deletes alike', async () => {
      await both((collection) =>
        collection.updateMany(
          { hookId: 'h1', createdAt: { $lt: 1_040 } },
          { $set: { event: 'Moved' }, $inc: { createdAt: 500 } },
        ),
      );
      await both((collection) =>
        collection.updateOne({ _id: 'new-one' }, { $set: { hookId: 'h2', createdAt: 1_111 } }, { upsert: true }),
      );
      await both((collection) =>
        collection.findOneAndUpdate({ hookId: 'h3' }, { $set: { succeeded: null } }, { sort: { createdAt: -1 } }),
      );
      await both((collection) => collection.deleteMany({ hookId: 'h2', event: 'Role.Created' }));
      await both((collection) => collection.findOneAndDelete({ deliveryId: 'dlv_3' }));
      // Updates that leave every indexed field and the expiry alone, and ones that change only those.
      await both((collection) =>
        collection.updateMany({ hookId: 'h3' }, { $set: { note: 'kept' }, $inc: { attempt: 1 } }),
      );
      await both((collection) =>
        collection.updateOne({ hookId: 'h1' }, { $set: { expiresAt: new Date(Date.now() - 1000) } }),
      );
      await both((collection) => collection.updateOne({ deliveryId: 'dlv_5' }, { $set: { deliveryId: 'dlv_moved' } }));
      await compareAll('after writes');
    });

    it('answers alike once some documents hold arrays or objects in indexed fields', async () => {
      const odd: Doc[] = [
        { _id: 'arr-1', hookId: ['h1', 'h2'], createdAt: 1_099, event: 'User.Created', deliveryId: 'dlv_7' },
        {
          _id: 'arr-2',
          hookId: 'h1',
          createdAt: [1_200, 1_001],
          event: 'Role.Created',
          deliveryId: ['dlv_7', 'dlv_8'],
        },
        { _id: 'obj-1', hookId: { nested: 'h1' }, createdAt: 1_050, event: 'User.Created' },
        { _id: 'arr-3', hookId: [], createdAt: 1_120 },
      ];
      await both((collection) => collection.insertMany(structuredClone(odd)));
      await compareAll('with arrays');
    });

    it('reads its own uncommitted writes inside a transaction alike, and shows them to no one else', async () => {
      const seen: unknown[] = [];
      for (const [store, collection] of [
        [memory, inMemory],
        [disk, onDisk],
      ] as const) {
        await store.transaction(async () => {
          await collection.insertOne({ _id: 'tx-1', hookId: 'h1', createdAt: 5_000, event: 'User.Created' });
          await collection.deleteOne({ _id: 'd0001' });
          await collection.updateOne({ _id: 'd0002' }, { $set: { hookId: 'h1', createdAt: 5_001 } });
          const page = await collection.find(
            { hookId: 'h1', createdAt: { $gte: 4_000 } },
            { sort: { createdAt: -1 }, limit: 3 },
          );
          expect(page.map((doc) => doc._id).slice(0, 2), store.kind).to.deep.equal(['d0002', 'tx-1']);
          seen.push(
            page,
            await collection.countDocuments({ hookId: 'h1' }),
            await collection.findOne({ _id: 'd0001' }),
          );
          expect(await store.outsideTransaction(() => collection.findOne({ _id: 'tx-1' })), store.kind).to.equal(null);
        });
      }
      expect(seen.slice(3)).to.deep.equal(seen.slice(0, 3));
      await compareAll('after a transaction');
    });

    it('refuses an id a live document holds and takes one whose document expired, alike', async () => {
      const [later, earlier] = [new Date(Date.now() + 600_000), new Date(Date.now() - 1_000)];
      const [expected, actual] = await both(async (collection) => {
        const refusal = (error: Error) => error.name;
        await collection.insertMany([
          { _id: 'dup-live', hookId: 'h1', expiresAt: later },
          { _id: 'dup-gone', hookId: 'h1', expiresAt: earlier },
        ]);
        const one = await collection.insertOne({ _id: 'dup-live', hookId: 'h2' }).then(() => 'stored', refusal);
        // Up to the first duplicate, as the driver does.
        const many = await collection
          .insertMany([{ _id: 'dup-a' }, { _id: 'dup-live' }, { _id: 'dup-b' }])
          .then(() => 'stored', refusal);
        const again = await collection.insertOne({ _id: 'dup-gone', hookId: 'h3' }).then(() => 'stored', refusal);
        return [one, many, again, await collection.find({ _id: /^dup-/ }, { sort: { _id: 1 } })];
      });
      expect(actual).to.deep.equal(expected);
      expect(expected.slice(0, 3)).to.deep.equal(['DuplicateKeyError', 'DuplicateKeyError', 'stored']);
    });

    it('refuses a unique index', async () => {
      const refused = await onDisk.createIndex({ keys: { event: 1 }, unique: true }).then(
        () => null,
        (error: Error) => error.message,
      );
      expect(refused).to.match(/unique indexes are not supported/);
    });
  });
}
