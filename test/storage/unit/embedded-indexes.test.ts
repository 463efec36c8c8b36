/**
 * The embedded store's indexes change which documents a query looks at, never its answer: the same documents, writes
 * and queries run on a collection with non-unique, compound, descending, multikey and substring indexes and on one
 * without any, and every answer (natural order, sort ties and pages included) must be the same. Random but seeded,
 * through enough removals that the slots are compacted more than once.
 */
import { expect } from 'chai';
import { createMemoryDocumentStore } from '../../../adapters/memory/documents.ts';
import type { Doc, DocumentCollection, Filter, FindOptions, IndexSpec, Sort } from '../../../lib/ports/documents.ts';

/** A deterministic generator (a linear congruential one), so that a failure can be replayed. */
function random(seed: number) {
  let state = seed;
  const next = () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
  return {
    int: (below: number) => Math.floor(next() * below),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!,
    chance: (p: number) => next() < p,
  };
}

const GROUPS = ['a', 'b', 'c', 'd', 'e'];
const WORDS = [
  'Alpha',
  'beta',
  'GAMMA',
  'delta',
  'Σίσυφος',
  'ΣΊΣΥΦΟΣ',
  'straße',
  'Kelvin',
  'KELVIN',
  'x-ray',
  'a.b*c',
  'Jo',
  'ΟΔΟΣ',
];

function makeDoc(rng: ReturnType<typeof random>, n: number): Doc {
  const doc: Doc = {
    _id: `d${n}`,
    g: rng.pick(GROUPS),
    n: rng.int(40),
    t: 1000 + rng.int(60),
    name: `${rng.pick(WORDS)} ${rng.pick(WORDS)} ${n}`,
  };
  if (rng.chance(0.05)) doc.g = [rng.pick(GROUPS), rng.pick(GROUPS)];
  if (rng.chance(0.04)) delete doc.g;
  if (rng.chance(0.03)) doc.g = null;
  if (rng.chance(0.03)) doc.n = `n${rng.int(5)}`;
  if (rng.chance(0.02)) doc.t = new Date(1_700_000_000_000 + rng.int(10) * 1000);
  if (rng.chance(0.1)) doc.tags = [rng.pick(WORDS), rng.pick(WORDS)];
  if (rng.chance(0.02)) doc.name = [rng.pick(WORDS), `${rng.pick(WORDS)}!`];
  return doc;
}

function makeFilter(rng: ReturnType<typeof random>): Filter {
  const literal = () =>
    rng.pick(['alp', 'ETA', 'amm', 'σίσ', 'ΣΊΣ', 'ς', 'ß', 'elv', 'kel', 'x-r', 'a.b', 'b*c', 'zzz', 'Jo', '1', '12']);
  const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
  const shapes: Array<() => Filter> = [
    () => ({}),
    () => ({ $and: [{}, {}] }),
    () => ({ g: rng.pick(GROUPS) }),
    () => ({ g: null }),
    () => ({ g: { $in: [rng.pick(GROUPS), rng.pick(GROUPS), null] } }),
    () => ({ n: { $gte: rng.int(40), $lt: rng.int(40) + 5 } }),
    () => ({ n: { $gt: rng.int(40) } }),
    () => ({ g: rng.pick(GROUPS), t: { $gte: 1000 + rng.int(60) } }),
    () => ({ g: rng.pick(GROUPS), t: { $gte: 1000 + rng.int(30), $lte: 1030 + rng.int(30) }, n: { $ne: 3 } }),
    () => ({ t: { $gt: new Date(1_700_000_003_000) } }),
    () => ({ tags: rng.pick(WORDS) }),
    () => ({ name: new RegExp(escapeRegExp(literal()), rng.pick(['i', ''])) }),
    () => ({ name: new RegExp(`^[\\s\\S]*${escapeRegExp(literal())}[\\s\\S]*$`, 'i') }),
    () => ({ name: { $regex: escapeRegExp(literal()), $options: 'i' } }),
    () => ({ $or: [{ name: new RegExp(escapeRegExp(literal()), 'i') }, { g: rng.pick(GROUPS) }] }),
    () => ({
      $and: [
        { n: { $lt: 20 } },
        {
          $or: [{ name: new RegExp(escapeRegExp(literal()), 'i') }, { tags: new RegExp(escapeRegExp(literal()), 'i') }],
        },
      ],
    }),
    () => ({ _id: { $in: [`d${rng.int(300)}`, `d${rng.int(300)}`, 'nope'] }, g: { $exists: true } }),
    () => ({ g: rng.pick(GROUPS), $or: [{ n: { $lt: 10 } }, { n: { $gt: 30 } }] }),
  ];
  return rng.pick(shapes)();
}

const SORTS: Array<Sort | undefined> = [
  undefined,
  { t: 1 },
  { t: -1 },
  { t: -1, _id: -1 },
  { t: 1, _id: 1 },
  { g: 1, t: -1 },
  { n: 1 },
  { n: -1, t: 1 },
  { g: -1 },
];

function makeOptions(rng: ReturnType<typeof random>): FindOptions {
  const options: FindOptions = {};
  const sort = rng.pick(SORTS);
  if (sort) options.sort = sort;
  if (rng.chance(0.6)) options.limit = rng.pick([1, 3, 10, 25, -4]);
  if (rng.chance(0.5)) options.skip = rng.pick([0, 1, 7, 40, 150, 5000]);
  return options;
}

describe('embedded store: indexes never change an answer', () => {
  it('finds, counts and pages alike with and without indexes, through writes and slot compaction', async function () {
    this.timeout(60_000);
    const store = createMemoryDocumentStore();
    const plain = store.collection('plain');
    const indexed = store.collection('indexed');
    await indexed.createIndex({ keys: { g: 1, t: -1 } });
    await indexed.createIndex({ keys: { n: 1 } });
    await indexed.createIndex({ keys: { t: 1, _id: 1 } });
    await indexed.createIndex({ keys: { tags: 1 } });
    await indexed.createIndex({ keys: { name: 1 }, substring: true });
    await indexed.createIndex({ keys: { tags: 1, n: -1 }, name: 'tags_n' });
    const rng = random(20261202);
    const both = async <R>(work: (collection: DocumentCollection) => Promise<R>): Promise<[R, R]> => [
      await work(plain),
      await work(indexed),
    ];
    let next = 0;
    const insert = async (count: number) => {
      const docs = Array.from({ length: count }, () => makeDoc(rng, next++));
      await both((collection) => collection.insertMany(structuredClone(docs)));
    };
    const compare = async (round: number) => {
      for (let i = 0; i < 120; i += 1) {
        const filter = makeFilter(rng);
        const options = makeOptions(rng);
        const label = `round ${round}: ${JSON.stringify(filter, (_, value) => (value instanceof RegExp ? String(value) : value))} ${JSON.stringify(options)}`;
        const [expected, actual] = await both((collection) => collection.find(filter, options));
        expect(
          actual.map((doc) => doc._id),
          `find ${label}`,
        ).to.deep.equal(expected.map((doc) => doc._id));
        expect(actual, `find ${label}`).to.deep.equal(expected);
        const [expectedCount, actualCount] = await both((collection) => collection.countDocuments(filter));
        expect(actualCount, `count ${label}`).to.equal(expectedCount);
        const [expectedOne, actualOne] = await both((collection) => collection.findOne(filter, { sort: options.sort }));
        expect(actualOne, `findOne ${label}`).to.deep.equal(expectedOne);
      }
    };
    await insert(1500);
    await compare(0);
    for (let round = 1; round <= 6; round += 1) {
      // Every random value is drawn once, before both collections get the same write.
      const [group, regroup, renamed, pushed, picked] = [
        rng.pick(GROUPS),
        rng.pick(GROUPS),
        rng.pick(WORDS),
        rng.pick(WORDS),
        rng.pick(GROUPS),
      ];
      const removed = Array.from({ length: 5 }, () => rng.int(40));
      await both((collection) =>
        collection.updateMany(
          { g: group, n: { $lt: 15 }, t: { $lt: 100_000 } },
          { $set: { g: regroup }, $inc: { t: 7 } },
        ),
      );
      await both((collection) => collection.updateMany({ n: { $gt: 30 } }, { $set: { name: `${renamed} renamed` } }));
      await both((collection) => collection.updateMany({ g: picked }, { $push: { tags: pushed } }));
      await both((collection) =>
        collection.findOneAndUpdate({ g: regroup }, { $set: { t: 999 } }, { sort: { t: -1, _id: 1 } }),
      );
      await both((collection) => collection.deleteMany({ n: { $in: removed } }));
      // Most of what is left goes, so that holes outnumber documents and the slots are compacted.
      if (round % 2 === 0) await both((collection) => collection.deleteMany({ t: { $lt: 1045 } }));
      await insert(round % 2 === 0 ? 1400 : 300);
      await store.transaction(async () => {
        await indexed.updateOne({ g: 'a' }, { $set: { g: 'b', t: 5000 } });
        await plain.updateOne({ g: 'a' }, { $set: { g: 'b', t: 5000 } });
        await indexed.insertOne({ _id: `tx${round}`, g: 'c', t: 1001, n: 1, name: 'Alpha tx' });
        await plain.insertOne({ _id: `tx${round}`, g: 'c', t: 1001, n: 1, name: 'Alpha tx' });
      });
      await compare(round);
    }
    expect(await indexed.countDocuments({})).to.be.above(500);
    await store.close();
  });

  it('builds indexes over documents already stored, and refuses a substring index it cannot keep', async () => {
    const store = createMemoryDocumentStore();
    const users = store.collection('users');
    await users.insertMany(
      Array.from({ length: 500 }, (_, n) => ({ _id: `u${n}`, email: `user${n}@example.com`, createdAt: 10_000 - n })),
    );
    await users.createIndex({ keys: { email: 1 }, substring: true });
    await users.createIndex({ keys: { createdAt: 1 } });
    const found = await users.find({ email: /ER12/i }, { sort: { createdAt: 1, _id: 1 } });
    expect(found.map((doc) => doc._id)).to.deep.equal([
      'u129',
      'u128',
      'u127',
      'u126',
      'u125',
      'u124',
      'u123',
      'u122',
      'u121',
      'u120',
      'u12',
    ]);
    expect((await users.find({}, { sort: { createdAt: 1 }, skip: 498 })).map((doc) => doc._id)).to.deep.equal([
      'u1',
      'u0',
    ]);
    const refusedSpecs: IndexSpec[] = [
      { keys: { email: 1, createdAt: 1 } },
      { keys: { email: 1 }, unique: true },
      { keys: { email: 1 }, expireAfterSeconds: 60 },
    ];
    for (const spec of refusedSpecs) {
      const refused = await users.createIndex({ ...spec, substring: true, name: 'other' }).then(
        () => null,
        (error: Error) => error.message,
      );
      expect(refused, JSON.stringify(spec)).to.match(/substring index/);
    }
    await store.close();
  });

  it("answers a TTL field's lower bound that every stored document meets as a collection without indexes does", async () => {
    const store = createMemoryDocumentStore();
    const [plain, indexed] = [store.collection('plain'), store.collection('indexed')];
    for (const collection of [plain, indexed])
      await collection.createIndex({ keys: { expiresAt: 1 }, expireAfterSeconds: 0 });
    await indexed.createIndex({ keys: { g: 1, t: -1 } });
    const now = Date.now();
    const docs = Array.from({ length: 400 }, (_, n) => ({
      _id: `d${n}`,
      g: GROUPS[n % 3],
      t: n % 50,
      expiresAt: new Date(now + 60_000 + (n % 7) * 1000),
    }));
    for (const collection of [plain, indexed]) await collection.insertMany(structuredClone(docs));
    const compare = async (label: string) => {
      const filters: Filter[] = [
        { g: 'a', t: { $gte: 20 }, expiresAt: { $gt: new Date() } },
        { g: 'b', expiresAt: { $gte: new Date(now - 1000) } },
        // Not met by every document: tested as written.
        { g: 'a', t: { $gte: 20 }, expiresAt: { $gt: new Date(now + 63_000) } },
        { g: 'c', expiresAt: { $gt: new Date(), $lt: new Date(now + 62_500) } },
      ];
      for (const filter of filters) {
        for (const options of [
          { sort: { t: -1, _id: -1 }, limit: 7 },
          { sort: { t: -1, _id: -1 }, skip: 30, limit: 5 },
        ] as FindOptions[]) {
          expect(await indexed.find(filter, options), `${label} ${JSON.stringify(filter)}`).to.deep.equal(
            await plain.find(filter, options),
          );
        }
        expect(await indexed.countDocuments(filter), `${label} count ${JSON.stringify(filter)}`).to.equal(
          await plain.countDocuments(filter),
        );
      }
    };
    await compare('every document dated');
    // A document without a date never expires, and matches no date bound.
    for (const collection of [plain, indexed]) await collection.insertOne({ _id: 'undated', g: 'a', t: 30 });
    await compare('one undated');
    for (const collection of [plain, indexed]) await collection.deleteOne({ _id: 'undated' });
    await compare('dated again');
    await store.close();
  });

  it('keeps a substring index beside a unique one on the same field, which still refuses duplicates', async () => {
    const store = createMemoryDocumentStore();
    const users = store.collection('users');
    await users.createIndex({ keys: { email: 1 }, unique: true, sparse: true });
    await users.createIndex({ keys: { email: 1 }, substring: true, name: 'email_substring' });
    await users.insertMany(Array.from({ length: 300 }, (_, n) => ({ _id: `u${n}`, email: `user${n}@example.com` })));
    const found = await users.find({ $and: [{}, { $or: [{ _id: /ER29/i }, { email: /ER29/i }] }] });
    expect(found.map((doc) => doc._id)).to.deep.equal([
      'u29',
      'u290',
      'u291',
      'u292',
      'u293',
      'u294',
      'u295',
      'u296',
      'u297',
      'u298',
      'u299',
    ]);
    const duplicate = await users.insertOne({ email: 'user7@example.com' }).then(
      () => null,
      (error: { code?: number }) => error.code,
    );
    expect(duplicate).to.equal(11000);
    const second = await users.createIndex({ keys: { email: 1 }, name: 'email_again' }).then(
      () => null,
      (error: Error) => error.message,
    );
    expect(second).to.match(/same keys already exists as email_1/);
    await store.close();
  });
});
