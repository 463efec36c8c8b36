/**
 * One contract for every DocumentStore backend: the in-memory store always, MongoDB when MONGODB_URI is
 * set (reported as pending otherwise). Only behaviour MongoDB itself exhibits is asserted here.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { createMemoryDocumentStore } from '../../../adapters/memory/documents.ts';
import { createMongoDocumentStore } from '../../../adapters/mongodb/documents.ts';
import { sqliteBackend as sqliteStores } from '../../support/storage/backends.ts';
import {
  DuplicateKeyError,
  type Doc,
  type DocumentCollection,
  type DocumentStore,
} from '../../../lib/ports/documents.ts';
import { eventually } from '../../support/wait.ts';

interface Backend {
  readonly kind: DocumentStore['kind'];
  /** Why this backend cannot run here, or null. */
  readonly unavailable: string | null;
  /** Upper bound for the backend to delete an expired TTL document (MongoDB's TTL monitor is periodic). */
  readonly ttlDelayMs: number;
  setUp(): Promise<void>;
  /** A store with no data, independent of every other store opened. */
  open(): Promise<DocumentStore>;
  tearDown(): Promise<void>;
}

function memoryBackend(): Backend {
  return {
    kind: 'memory',
    unavailable: null,
    ttlDelayMs: 0,
    async setUp() {},
    async open() {
      return createMemoryDocumentStore();
    },
    async tearDown() {},
  };
}

function sqliteBackend(): Backend {
  const stores = sqliteStores();
  return {
    kind: 'sqlite',
    unavailable: null,
    ttlDelayMs: 0,
    async setUp() {},
    open: () => stores.open(),
    tearDown: () => stores.tearDown(),
  };
}

function mongoBackend(uri: string | undefined): Backend {
  const runId = randomUUID().slice(0, 8);
  const dbNames: string[] = [];
  const admin = { client: null as MongoClient | null, ttlSleepSecs: null as number | null };
  return {
    kind: 'mongodb',
    unavailable: uri ? null : 'MONGODB_URI is not set',
    ttlDelayMs: 75_000,
    async setUp() {
      admin.client = await MongoClient.connect(uri!);
      // Shorten the TTL monitor's 60 s cycle when allowed; restored in tearDown.
      try {
        const current = await admin.client.db('admin').command({ getParameter: 1, ttlMonitorSleepSecs: 1 });
        await admin.client.db('admin').command({ setParameter: 1, ttlMonitorSleepSecs: 1 });
        admin.ttlSleepSecs = Number(current.ttlMonitorSleepSecs);
      } catch {
        admin.ttlSleepSecs = null;
      }
    },
    async open() {
      const dbName = `contract_${runId}_${dbNames.length}`;
      dbNames.push(dbName);
      return createMongoDocumentStore(uri!, { dbName });
    },
    async tearDown() {
      const client = admin.client;
      if (!client) return;
      for (const dbName of dbNames) await client.db(dbName).dropDatabase();
      if (admin.ttlSleepSecs !== null) {
        await client.db('admin').command({ setParameter: 1, ttlMonitorSleepSecs: admin.ttlSleepSecs });
      }
      await client.close();
    },
  };
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    expect(error).to.be.instanceOf(Error);
    return error as Error;
  }
  throw new Error('expected the operation to fail');
}

async function duplicateKey(promise: Promise<unknown>): Promise<DuplicateKeyError> {
  const error = await rejection(promise);
  expect(error).to.be.instanceOf(DuplicateKeyError);
  return error as DuplicateKeyError;
}

/** Bounded polling for the backend's own removal of expired documents (immediate in memory). */
async function removedWithin(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  await eventually(check, { timeoutMs, intervalMs: 250, what: 'the expired document removed' });
}

const ids = (docs: Doc[]): unknown[] => docs.map((doc) => doc._id);

const result = (matchedCount: number, modifiedCount: number, upsertedId: unknown = null) => ({
  matchedCount,
  modifiedCount,
  upsertedId,
});

function withoutId(doc: Doc | null): Doc {
  expect(doc).to.not.equal(null);
  const { _id, ...rest } = doc!;
  return rest;
}

const PEOPLE: Doc[] = [
  {
    _id: 'ann',
    name: 'Ann',
    age: 31,
    tags: ['admin', 'dev'],
    address: { city: 'Oslo', zip: '0150' },
    roles: [
      { name: 'owner', org: 'o1' },
      { name: 'member', org: 'o2' },
    ],
    joined: new Date('2024-01-10T00:00:00Z'),
    nickname: null,
  },
  {
    _id: 'bob',
    name: 'bob',
    age: 25,
    tags: ['dev'],
    address: { city: 'Bergen' },
    roles: [{ name: 'member', org: 'o1' }],
    joined: new Date('2024-03-05T00:00:00Z'),
  },
  { _id: 'cid', name: 'Cid', age: 42, tags: [], roles: [], joined: new Date('2023-07-01T00:00:00Z'), scores: [80, 95] },
  { _id: 'dee', name: 'Dee', age: '40', tags: ['ops'], scores: [70, 85, 90] },
];

function documentStoreContract(backend: Backend): void {
  describe(`DocumentStore contract: ${backend.kind}`, () => {
    let store: DocumentStore;
    let sequence = 0;
    /** A fresh, empty collection for each use. */
    const fresh = (): DocumentCollection => store.collection(`c${++sequence}_${randomUUID().slice(0, 6)}`);

    before(async function () {
      if (backend.unavailable) this.skip();
      await backend.setUp();
      store = await backend.open();
    });

    after(async () => {
      await store?.close();
      await backend.tearDown();
    });

    describe('store', () => {
      it('reports its kind, answers ping and names its collections', async () => {
        expect(store.kind).to.equal(backend.kind);
        await store.ping();
        const collection = store.collection('named');
        expect(collection.name).to.equal('named');
        expect(store.collection('named')).to.equal(collection);
      });

      it('keeps two stores independent', async () => {
        const other = await backend.open();
        try {
          await other.collection('shared').insertOne({ _id: 'only-in-other' });
          expect(await store.collection('shared').findOne({ _id: 'only-in-other' })).to.equal(null);
          expect(await other.collection('shared').countDocuments({})).to.equal(1);
        } finally {
          await other.close();
        }
      });
    });

    describe('inserts and copies', () => {
      it('round-trips documents, with Dates as Dates', async () => {
        const c = fresh();
        const at = new Date('2024-05-06T07:08:09.010Z');
        await c.insertOne({ _id: 'a', at, nested: { list: [1, 'two', { three: 3 }] } });
        const found = await c.findOne({ _id: 'a' });
        expect(found).to.deep.equal({ _id: 'a', at, nested: { list: [1, 'two', { three: 3 }] } });
        expect(found!.at).to.be.instanceOf(Date);
      });

      it('stores undefined values as null, as the driver serialises them', async () => {
        const c = fresh();
        await c.insertOne({ _id: 'u', a: undefined, nested: { b: undefined }, list: [undefined] });
        await c.updateOne({ _id: 'u' }, { $set: { c: undefined } });
        expect(await c.findOne({ _id: 'u' })).to.deep.equal({
          _id: 'u',
          a: null,
          nested: { b: null },
          list: [null],
          c: null,
        });
        expect(await c.countDocuments({ a: { $exists: true } })).to.equal(1);
      });

      it('assigns an _id to the given document when it has none', async () => {
        const c = fresh();
        const doc: Doc = { name: 'no id' };
        await c.insertOne(doc);
        expect(doc._id).to.not.equal(undefined);
        expect(await c.findOne({ _id: doc._id })).to.deep.equal({ _id: doc._id, name: 'no id' });
      });

      it('rejects a duplicate _id and keeps the original', async () => {
        const c = fresh();
        await c.insertOne({ _id: 'a', v: 1 });
        const error = await duplicateKey(c.insertOne({ _id: 'a', v: 2 }));
        expect(error.collection).to.equal(c.name);
        expect(error.keyPattern).to.deep.equal({ _id: 1 });
        expect(error.code).to.equal(11000);
        expect(await c.find({})).to.deep.equal([{ _id: 'a', v: 1 }]);
      });

      it('keeps ids of different types apart, whatever characters a string id holds', async () => {
        const c = fresh();
        const idsOfKinds = [1, '1', '', '\u0000n:1', '\u0000s:"a"', 'a', { a: 1 }, '{"a":1}'];
        for (const [i, _id] of idsOfKinds.entries()) await c.insertOne({ _id, i });
        for (const [i, _id] of idsOfKinds.entries()) {
          expect(await c.findOne({ _id }), JSON.stringify(_id)).to.deep.equal({ _id, i });
        }
        await duplicateKey(c.insertOne({ _id: '\u0000n:1' }));
        await c.deleteOne({ _id: 1 });
        expect(await c.findOne({ _id: '\u0000n:1' })).to.deep.equal({ _id: '\u0000n:1', i: 3 });
        expect(await c.countDocuments({})).to.equal(idsOfKinds.length - 1);
      });

      it('inserts many in order and stops at the first duplicate', async () => {
        const c = fresh();
        await c.insertMany([{ _id: 1 }, { _id: 2 }]);
        await duplicateKey(c.insertMany([{ _id: 3 }, { _id: 1 }, { _id: 4 }]));
        expect(ids(await c.find({}, { sort: { _id: 1 } }))).to.deep.equal([1, 2, 3]);
      });

      it('never shares references with callers', async () => {
        const c = fresh();
        const doc = { _id: 'a', nested: { n: 1 }, list: [1] };
        await c.insertOne(doc);
        doc.nested.n = 2;
        doc.list.push(2);
        const first = await c.findOne({ _id: 'a' });
        expect(first).to.deep.equal({ _id: 'a', nested: { n: 1 }, list: [1] });
        (first!.nested as Doc).n = 3;
        (await c.find({}))[0]!.list = [];
        const value = { deep: { x: 1 } };
        await c.updateOne({ _id: 'a' }, { $set: { value } });
        value.deep.x = 2;
        const updated = await c.findOneAndUpdate(
          { _id: 'a' },
          { $set: { touched: true } },
          { returnDocument: 'after' },
        );
        (updated!.value as Doc).deep = null;
        expect(await c.findOne({ _id: 'a' })).to.deep.equal({
          _id: 'a',
          nested: { n: 1 },
          list: [1],
          value: { deep: { x: 1 } },
          touched: true,
        });
      });

      it('never shares dates with callers, even between documents of the same instant', async () => {
        const c = fresh();
        const at = new Date('2024-05-06T07:08:09.000Z');
        await c.insertMany([
          { _id: 'a', at },
          { _id: 'b', at: new Date(at.getTime()) },
        ]);
        at.setTime(0);
        const read = await c.findOne({ _id: 'a' });
        (read!.at as Date).setTime(1);
        await c.updateOne({ _id: 'b' }, { $set: { touched: true } });
        const updated = await c.findOne({ _id: 'b' });
        (updated!.at as Date).setTime(2);
        const times = (await c.find({}, { sort: { _id: 1 } })).map((doc) => (doc.at as Date).getTime());
        expect(times).to.deep.equal([Date.parse('2024-05-06T07:08:09.000Z'), Date.parse('2024-05-06T07:08:09.000Z')]);
      });
    });

    describe('filters', () => {
      let people: DocumentCollection;
      const query = async (filter: Doc) => ids(await people.find(filter, { sort: { _id: 1 } }));

      before(async () => {
        people = fresh();
        await people.insertMany(structuredClone(PEOPLE));
      });

      it('matches equality on top-level and dotted paths, including into arrays of subdocuments', async () => {
        expect(await query({ name: 'Ann' })).to.deep.equal(['ann']);
        expect(await query({ 'address.city': 'Oslo' })).to.deep.equal(['ann']);
        expect(await query({ 'roles.org': 'o2' })).to.deep.equal(['ann']);
        expect(await query({ 'roles.name': 'member' })).to.deep.equal(['ann', 'bob']);
        expect(await query({ 'tags.0': 'admin' })).to.deep.equal(['ann']);
        expect(await query({ name: 'Ann', age: 30 })).to.deep.equal([]);
      });

      it('matches arrays by element and by whole value', async () => {
        expect(await query({ tags: 'dev' })).to.deep.equal(['ann', 'bob']);
        expect(await query({ tags: ['dev'] })).to.deep.equal(['bob']);
        expect(await query({ tags: ['dev', 'admin'] })).to.deep.equal([]);
        expect(await query({ tags: ['admin', 'dev'] })).to.deep.equal(['ann']);
        expect(await query({ tags: [] })).to.deep.equal(['cid']);
      });

      it('matches embedded documents exactly, field order included', async () => {
        expect(await query({ address: { city: 'Bergen' } })).to.deep.equal(['bob']);
        expect(await query({ address: { city: 'Oslo' } })).to.deep.equal([]);
        expect(await query({ address: { zip: '0150', city: 'Oslo' } })).to.deep.equal([]);
        expect(await query({ address: { city: 'Oslo', zip: '0150' } })).to.deep.equal(['ann']);
      });

      it('treats null as null or missing, and supports $exists', async () => {
        expect(await query({ nickname: null })).to.deep.equal(['ann', 'bob', 'cid', 'dee']);
        expect(await query({ nickname: { $exists: true } })).to.deep.equal(['ann']);
        expect(await query({ address: { $exists: false } })).to.deep.equal(['cid', 'dee']);
        expect(await query({ nickname: { $ne: null } })).to.deep.equal([]);
        expect(await query({ 'address.zip': { $ne: null } })).to.deep.equal(['ann']);
        expect(await query({ 'roles.org': { $exists: true } })).to.deep.equal(['ann', 'bob']);
      });

      it('compares numbers, strings and dates within their own type', async () => {
        expect(await query({ age: { $eq: 25 } })).to.deep.equal(['bob']);
        expect(await query({ age: { $ne: 25 } })).to.deep.equal(['ann', 'cid', 'dee']);
        expect(await query({ age: { $gt: 30 } })).to.deep.equal(['ann', 'cid']);
        expect(await query({ age: { $gte: 31, $lte: 42 } })).to.deep.equal(['ann', 'cid']);
        expect(await query({ age: { $lt: 30 } })).to.deep.equal(['bob']);
        expect(await query({ age: { $gt: '1' } })).to.deep.equal(['dee']);
        expect(await query({ name: { $gt: 'a' } })).to.deep.equal(['bob']);
        expect(await query({ name: { $lte: 'Cid' } })).to.deep.equal(['ann', 'cid']);
        expect(await query({ joined: { $gte: new Date('2024-01-01T00:00:00Z') } })).to.deep.equal(['ann', 'bob']);
        expect(await query({ joined: { $lt: new Date('2024-01-01T00:00:00Z') } })).to.deep.equal(['cid']);
        expect(await query({ joined: new Date('2024-03-05T00:00:00Z') })).to.deep.equal(['bob']);
      });

      it('supports $in, $nin and $all, also on array fields', async () => {
        expect(await query({ age: { $in: [25, 42] } })).to.deep.equal(['bob', 'cid']);
        expect(await query({ tags: { $in: ['ops', 'admin'] } })).to.deep.equal(['ann', 'dee']);
        expect(await query({ address: { $in: [null] } })).to.deep.equal(['cid', 'dee']);
        expect(await query({ age: { $nin: [25, 42] } })).to.deep.equal(['ann', 'dee']);
        expect(await query({ tags: { $nin: ['dev'] } })).to.deep.equal(['cid', 'dee']);
        expect(await query({ tags: { $all: ['dev', 'admin'] } })).to.deep.equal(['ann']);
      });

      it('supports $regex with $options, RegExp values and $not', async () => {
        expect(await query({ name: { $regex: '^[a-c]' } })).to.deep.equal(['bob']);
        expect(await query({ name: { $regex: '^[a-c]', $options: 'i' } })).to.deep.equal(['ann', 'bob', 'cid']);
        expect(await query({ name: /^d/i })).to.deep.equal(['dee']);
        expect(await query({ tags: /^op/ })).to.deep.equal(['dee']);
        expect(await query({ name: { $in: [/^a/i, 'bob'] } })).to.deep.equal(['ann', 'bob']);
        expect(await query({ name: { $not: /^a/i } })).to.deep.equal(['bob', 'cid', 'dee']);
        expect(await query({ age: { $not: { $gt: 30 } } })).to.deep.equal(['bob', 'dee']);
      });

      it('supports $and, $or and $nor', async () => {
        expect(await query({ $and: [{ tags: 'dev' }, { age: { $gt: 30 } }] })).to.deep.equal(['ann']);
        expect(await query({ $or: [{ age: 25 }, { name: 'Dee' }] })).to.deep.equal(['bob', 'dee']);
        expect(await query({ $nor: [{ tags: 'dev' }, { age: 42 }] })).to.deep.equal(['dee']);
        expect(await query({ tags: 'dev', $or: [{ age: 25 }, { age: 42 }] })).to.deep.equal(['bob']);
      });

      it('supports $elemMatch on subdocuments and on values', async () => {
        expect(await query({ roles: { $elemMatch: { name: 'member', org: 'o1' } } })).to.deep.equal(['bob']);
        expect(await query({ 'roles.name': 'member', 'roles.org': 'o1' })).to.deep.equal(['ann', 'bob']);
        expect(await query({ scores: { $elemMatch: { $gte: 82, $lt: 88 } } })).to.deep.equal(['dee']);
        expect(await query({ scores: { $gte: 82, $lt: 88 } })).to.deep.equal(['cid', 'dee']);
      });

      it('supports $size', async () => {
        expect(await query({ tags: { $size: 2 } })).to.deep.equal(['ann']);
        expect(await query({ tags: { $size: 0 } })).to.deep.equal(['cid']);
      });

      it('counts matches', async () => {
        expect(await people.countDocuments({ tags: 'dev' })).to.equal(2);
        expect(await people.countDocuments({})).to.equal(4);
      });

      it('rejects unknown operators', async () => {
        await rejection(people.find({ age: { $foo: 1 } }));
        await rejection(people.find({ $foo: [{ age: 1 }] }));
        await rejection(people.countDocuments({ age: { $gt: 1, $bar: 2 } }));
        await rejection(people.find({ name: 'nobody', age: { $foo: 1 } }));
      });
    });

    describe('sort, skip, limit and projection', () => {
      let people: DocumentCollection;
      before(async () => {
        people = fresh();
        await people.insertMany(structuredClone(PEOPLE));
      });

      it('sorts on several keys, skips and limits', async () => {
        const c = fresh();
        await c.insertMany([
          { _id: 1, group: 'b', n: 1 },
          { _id: 2, group: 'a', n: 1 },
          { _id: 3, group: 'b', n: 2 },
          { _id: 4, group: 'a', n: 3 },
        ]);
        expect(ids(await c.find({}, { sort: { group: 1, n: -1 } }))).to.deep.equal([4, 2, 3, 1]);
        expect(ids(await c.find({}, { sort: { group: -1, n: 1 } }))).to.deep.equal([1, 3, 2, 4]);
        expect(ids(await c.find({}, { sort: { _id: 1 }, skip: 1, limit: 2 }))).to.deep.equal([2, 3]);
        expect(ids(await c.find({}, { sort: { _id: -1 }, limit: 1 }))).to.deep.equal([4]);
        expect(await c.findOne({}, { sort: { n: -1 } })).to.deep.equal({ _id: 4, group: 'a', n: 3 });
      });

      it('orders mixed types like MongoDB: null/missing, numbers, strings, objects, booleans, dates', async () => {
        const c = fresh();
        await c.insertMany([
          { _id: 'date', v: new Date('2020-01-01T00:00:00Z') },
          { _id: 'string', v: 'a' },
          { _id: 'bool', v: true },
          { _id: 'missing' },
          { _id: 'object', v: { x: 1 } },
          { _id: 'number', v: 5 },
          { _id: 'null', v: null },
          { _id: 'decimal', v: 4.5 },
          { _id: 'upper', v: 'B' },
        ]);
        expect(ids(await c.find({}, { sort: { v: 1, _id: 1 } }))).to.deep.equal([
          'missing',
          'null',
          'decimal',
          'number',
          'upper',
          'string',
          'object',
          'bool',
          'date',
        ]);
        expect(ids(await c.find({}, { sort: { v: -1, _id: 1 } }))).to.deep.equal([
          'date',
          'bool',
          'object',
          'string',
          'upper',
          'number',
          'decimal',
          'missing',
          'null',
        ]);
      });

      it('orders strings by code point, as their UTF-8 bytes order', async () => {
        const c = fresh();
        // UTF-16 units would put U+1F600 (a surrogate pair) before U+FF5E and U+E000; code points put it after.
        await c.insertMany([
          { _id: 'emoji', v: 'a\u{1F600}' },
          { _id: 'fullwidth', v: 'a\uFF5E' },
          { _id: 'private', v: 'a\uE000' },
          { _id: 'plain', v: 'az' },
          { _id: 'prefix', v: 'a' },
          { _id: 'longer', v: 'a\u{1F600}b' },
        ]);
        expect(ids(await c.find({}, { sort: { v: 1 } }))).to.deep.equal([
          'prefix',
          'plain',
          'private',
          'fullwidth',
          'emoji',
          'longer',
        ]);
        expect(ids(await c.find({}, { sort: { v: -1 }, limit: 2 }))).to.deep.equal(['longer', 'emoji']);
      });

      it('gives every page of a large collection as the slice of the whole sorted collection', async () => {
        const c = fresh();
        // A fixed pseudo-random sequence: ties on the first keys, arrays, mixed types, strings beyond the BMP.
        let seed = 7;
        const next = (n: number) => {
          seed = (seed * 1103515245 + 12345) % 2147483648;
          return seed % n;
        };
        const values = [
          () => next(5),
          () => `s${next(4)}`,
          () => (next(2) ? 'a\u{1F600}' : 'a\uFF5E'),
          () => new Date(Date.UTC(2024, 0, 1 + next(3))),
          () => [next(6), next(6)],
          () => null,
          () => undefined,
        ];
        await c.insertMany(
          Array.from({ length: 400 }, (_, i) => {
            const doc: Doc = {
              _id: `d${String(1000 - i)}`,
              group: next(3),
              at: new Date(Date.UTC(2024, 0, 1, 0, 0, next(50))),
            };
            const v = values[next(values.length)]!();
            if (v !== undefined) doc.v = v;
            return doc;
          }),
        );
        const sorts = [
          { group: 1, at: 1, _id: 1 },
          { v: 1, _id: 1 },
          { v: -1, _id: -1 },
          { at: -1, group: 1, _id: 1 },
        ] as const;
        for (const sort of sorts) {
          const whole = ids(await c.find({}, { sort }));
          expect(whole).to.have.length(400);
          for (const [skip, limit] of [
            [0, 1],
            [0, 20],
            [37, 20],
            [0, 99],
            [180, 100],
            [390, 20],
            [0, 300],
          ] as const) {
            expect(
              ids(await c.find({}, { sort, skip, limit })),
              `${JSON.stringify(sort)} ${skip}+${limit}`,
            ).to.deep.equal(whole.slice(skip, skip + limit));
          }
          expect((await c.findOne({}, { sort }))?._id).to.equal(whole[0]);
          expect(ids(await c.find({ group: 1 }, { sort, limit: 5 }))).to.deep.equal(
            ids(await c.find({ group: 1 }, { sort })).slice(0, 5),
          );
        }
      });

      it('sorts arrays by their smallest element ascending and largest descending', async () => {
        expect(ids(await people.find({}, { sort: { scores: 1, _id: 1 } }))).to.deep.equal(['ann', 'bob', 'dee', 'cid']);
        expect(ids(await people.find({}, { sort: { scores: -1, _id: 1 } }))).to.deep.equal([
          'cid',
          'dee',
          'ann',
          'bob',
        ]);
        expect(ids(await people.find({}, { sort: { age: 1 } }))).to.deep.equal(['bob', 'ann', 'cid', 'dee']);
      });

      it('projects by inclusion, keeping _id unless excluded', async () => {
        expect(await people.findOne({ _id: 'ann' }, { projection: { name: 1 } })).to.deep.equal({
          _id: 'ann',
          name: 'Ann',
        });
        expect(await people.findOne({ _id: 'ann' }, { projection: { name: 1, _id: 0 } })).to.deep.equal({
          name: 'Ann',
        });
        expect(
          await people.findOne({ _id: 'ann' }, { projection: { 'address.city': 1, 'roles.org': 1 } }),
        ).to.deep.equal({
          _id: 'ann',
          address: { city: 'Oslo' },
          roles: [{ org: 'o1' }, { org: 'o2' }],
        });
        expect(await people.find({ _id: 'bob' }, { projection: { age: 1 } })).to.deep.equal([{ _id: 'bob', age: 25 }]);
      });

      it('projects by exclusion', async () => {
        expect(
          await people.findOne(
            { _id: 'ann' },
            { projection: { roles: 0, tags: 0, joined: 0, 'address.zip': 0, nickname: 0 } },
          ),
        ).to.deep.equal({ _id: 'ann', name: 'Ann', age: 31, address: { city: 'Oslo' } });
        expect(await people.findOne({ _id: 'dee' }, { projection: { _id: 0, scores: 0 } })).to.deep.equal({
          name: 'Dee',
          age: '40',
          tags: ['ops'],
        });
      });

      it('rejects projections that mix inclusion and exclusion', async () => {
        await rejection(people.findOne({ _id: 'ann' }, { projection: { name: 1, tags: 0 } }));
      });
    });

    describe('update operators', () => {
      async function updated(before: Doc, update: Doc): Promise<Doc | null> {
        const c = fresh();
        await c.insertOne({ _id: 'x', ...before });
        await c.updateOne({ _id: 'x' }, update);
        return c.findOne({ _id: 'x' });
      }

      it('$set sets top-level and dotted paths, creating intermediate objects', async () => {
        expect(await updated({ a: 1, list: [1, 2] }, { $set: { a: 2, 'b.c.d': 'deep', 'list.1': 20 } })).to.deep.equal({
          _id: 'x',
          a: 2,
          list: [1, 20],
          b: { c: { d: 'deep' } },
        });
        expect(await updated({ p: { q: 1 } }, { $set: { 'p.r': 2 } })).to.deep.equal({ _id: 'x', p: { q: 1, r: 2 } });
      });

      it('$unset removes top-level and dotted fields', async () => {
        expect(await updated({ a: 1, p: { q: 1, r: 2 } }, { $unset: { a: '', 'p.q': '', missing: '' } })).to.deep.equal(
          {
            _id: 'x',
            p: { r: 2 },
          },
        );
      });

      it('$inc adds to numbers and creates missing fields', async () => {
        expect(await updated({ n: 5, p: {} }, { $inc: { n: -2, m: 3, 'p.k': 1 } })).to.deep.equal({
          _id: 'x',
          n: 3,
          p: { k: 1 },
          m: 3,
        });
      });

      it('$push appends one value or $each values', async () => {
        expect(await updated({ list: [1] }, { $push: { list: 2, fresh: 'a' } })).to.deep.equal({
          _id: 'x',
          list: [1, 2],
          fresh: ['a'],
        });
        expect(await updated({ list: [1] }, { $push: { list: { $each: [2, 3, 2] } } })).to.deep.equal({
          _id: 'x',
          list: [1, 2, 3, 2],
        });
      });

      it('$addToSet adds only values not already present, by deep equality', async () => {
        expect(await updated({ tags: ['a'] }, { $addToSet: { tags: 'a' } })).to.deep.equal({ _id: 'x', tags: ['a'] });
        expect(await updated({ tags: ['a'] }, { $addToSet: { tags: { $each: ['b', 'a', 'c', 'b'] } } })).to.deep.equal({
          _id: 'x',
          tags: ['a', 'b', 'c'],
        });
        expect(
          await updated(
            { objs: [{ k: 1, v: 'one' }] },
            { $addToSet: { objs: { $each: [{ k: 1, v: 'one' }, { k: 2 }, { k: 2 }] } } },
          ),
        ).to.deep.equal({ _id: 'x', objs: [{ k: 1, v: 'one' }, { k: 2 }] });
      });

      it('$pull removes by value, by condition and by subdocument filter', async () => {
        expect(await updated({ list: [1, 2, 1, 3] }, { $pull: { list: 1 } })).to.deep.equal({ _id: 'x', list: [2, 3] });
        expect(await updated({ list: ['a', 'b', 'c'] }, { $pull: { list: { $in: ['a', 'c'] } } })).to.deep.equal({
          _id: 'x',
          list: ['b'],
        });
        expect(await updated({ list: [4, 6, 8] }, { $pull: { list: { $gte: 6 } } })).to.deep.equal({
          _id: 'x',
          list: [4],
        });
        expect(
          await updated(
            {
              items: [
                { sku: 'a', qty: 1 },
                { sku: 'b', qty: 2 },
                { sku: 'a', qty: 3 },
              ],
            },
            { $pull: { items: { sku: 'a' } } },
          ),
        ).to.deep.equal({ _id: 'x', items: [{ sku: 'b', qty: 2 }] });
      });

      it('$min and $max keep the smaller or larger value, for numbers and dates', async () => {
        const early = new Date('2020-01-01T00:00:00Z');
        const late = new Date('2030-01-01T00:00:00Z');
        expect(
          await updated(
            { lo: 5, hi: 5, first: late, last: early },
            { $min: { lo: 3, first: early, fresh: 1 }, $max: { hi: 4, last: late } },
          ),
        ).to.deep.equal({ _id: 'x', lo: 3, hi: 5, first: early, last: late, fresh: 1 });
      });

      it('$setOnInsert does nothing when the document exists', async () => {
        expect(await updated({ a: 1 }, { $setOnInsert: { b: 2 }, $set: { c: 3 } })).to.deep.equal({
          _id: 'x',
          a: 1,
          c: 3,
        });
      });

      it('counts an update as a modification only when the stored document changes, embedded ones field by field in order', async () => {
        const c = fresh();
        await c.insertOne({ _id: 1, e: { a: 1, b: [1, { c: 'x' }] }, d: new Date(5) });
        const same = { $set: { e: { a: 1, b: [1, { c: 'x' }] }, d: new Date(5) } };
        expect(await c.updateOne({ _id: 1 }, same), 'the same values').to.deep.equal(result(1, 0));
        expect(
          await c.updateOne({ _id: 1 }, { $set: { e: { b: [1, { c: 'x' }], a: 1 } } }),
          'fields reordered',
        ).to.deep.equal(result(1, 1));
        expect(await c.updateOne({ _id: 1 }, { $set: { 'e.b.1.c': 'y' } }), 'a nested change').to.deep.equal(
          result(1, 1),
        );
        expect(
          await c.updateOne({ _id: 1 }, { $set: { 'e.b': [1, { c: 'y' }, null] } }),
          'a longer array',
        ).to.deep.equal(result(1, 1));
        expect(
          await c.updateOne({ _id: 1 }, { $set: { 'e.b': [1, { c: 'y' }, null] } }),
          'that array again',
        ).to.deep.equal(result(1, 0));
        expect(await c.findOne({ _id: 1 })).to.deep.equal({
          _id: 1,
          e: { b: [1, { c: 'y' }, null], a: 1 },
          d: new Date(5),
        });
      });

      it('reports matched and modified counts', async () => {
        const c = fresh();
        await c.insertMany([
          { _id: 1, v: 'a' },
          { _id: 2, v: 'b' },
          { _id: 3, v: 'c' },
        ]);
        expect(await c.updateOne({ _id: 1 }, { $set: { v: 'z' } })).to.deep.equal(result(1, 1));
        expect(await c.updateOne({ _id: 1 }, { $set: { v: 'z' } }), 'same value').to.deep.equal(result(1, 0));
        expect(await c.updateOne({ _id: 9 }, { $set: { v: 'z' } })).to.deep.equal(result(0, 0));
        expect(await c.updateMany({ _id: { $lte: 2 } }, { $set: { v: 'z' } })).to.deep.equal(result(2, 1));
        expect(await c.find({}, { sort: { _id: 1 } })).to.deep.equal([
          { _id: 1, v: 'z' },
          { _id: 2, v: 'z' },
          { _id: 3, v: 'c' },
        ]);
      });

      it('rejects replacement documents, _id changes and conflicting paths', async () => {
        const c = fresh();
        await c.insertOne({ _id: 'x', a: 1 });
        await rejection(c.updateOne({ _id: 'x' }, { a: 2 }));
        await rejection(c.updateOne({ _id: 'x' }, { $set: { _id: 'y' } }));
        await rejection(c.updateOne({ _id: 'x' }, { $set: { a: 2 }, $inc: { a: 1 } }));
        await rejection(c.updateOne({ _id: 'x' }, { $set: { p: 1, 'p.q': 2 } }));
        await rejection(c.updateOne({ _id: 'x' }, { $inc: { a: 'one' } }));
        await rejection(c.updateOne({ _id: 'nobody' }, { $inc: { a: 'one' } }));
        await rejection(c.updateMany({ _id: 'nobody' }, { $unknown: { a: 1 } }));
        expect(await c.find({})).to.deep.equal([{ _id: 'x', a: 1 }]);
      });
    });

    describe('upsert, replace, find-and-modify and delete', () => {
      it('upserts from the equality conditions of the filter, then applies the update', async () => {
        const c = fresh();
        const createdAt = new Date('2024-01-01T00:00:00Z');
        const filter = {
          email: 'a@example.com',
          'profile.age': 30,
          status: { $eq: 'active' },
          count: { $gt: 1 },
          $and: [{ role: 'admin' }],
        };
        const first = await c.updateOne(filter, { $set: { name: 'A' }, $setOnInsert: { createdAt } }, { upsert: true });
        expect(first.matchedCount).to.equal(0);
        expect(first.upsertedId).to.not.equal(null);
        const doc = await c.findOne({ _id: first.upsertedId });
        expect(withoutId(doc)).to.deep.equal({
          email: 'a@example.com',
          profile: { age: 30 },
          status: 'active',
          role: 'admin',
          name: 'A',
          createdAt,
        });
        const again = await c.updateOne(
          { email: 'a@example.com' },
          { $set: { name: 'B' }, $setOnInsert: { createdAt: new Date() } },
          { upsert: true },
        );
        expect(again).to.deep.equal(result(1, 1));
        expect(await c.countDocuments({})).to.equal(1);
        expect(withoutId(await c.findOne({}))).to.deep.include({ name: 'B', createdAt });
      });

      it('upserts with the _id of the filter', async () => {
        const c = fresh();
        expect(await c.updateOne({ _id: 'u1' }, { $inc: { n: 1 } }, { upsert: true })).to.deep.equal(
          result(0, 0, 'u1'),
        );
        await c.updateOne({ _id: 'u1' }, { $inc: { n: 1 } }, { upsert: true });
        expect(await c.find({})).to.deep.equal([{ _id: 'u1', n: 2 }]);
      });

      it('replaces whole documents, keeping _id, and upserts replacements', async () => {
        const c = fresh();
        await c.insertOne({ _id: 'r', a: 1, b: 2 });
        expect(await c.replaceOne({ _id: 'r' }, { c: 3 })).to.deep.equal(result(1, 1));
        expect(await c.findOne({ _id: 'r' })).to.deep.equal({ _id: 'r', c: 3 });
        await rejection(c.replaceOne({ _id: 'r' }, { _id: 'other', c: 4 }));
        expect(await c.replaceOne({ _id: 'new' }, { d: 4 })).to.deep.equal(result(0, 0));
        expect(await c.replaceOne({ _id: 'new' }, { d: 4 }, { upsert: true })).to.deep.equal(result(0, 0, 'new'));
        expect(await c.find({}, { sort: { _id: 1 } })).to.deep.equal([
          { _id: 'new', d: 4 },
          { _id: 'r', c: 3 },
        ]);
      });

      it('findOneAndUpdate returns the document before the update by default, or after', async () => {
        const c = fresh();
        await c.insertOne({ _id: 'f', n: 1, secret: 's' });
        expect(await c.findOneAndUpdate({ _id: 'f' }, { $inc: { n: 1 } })).to.deep.equal({
          _id: 'f',
          n: 1,
          secret: 's',
        });
        const after = await c.findOneAndUpdate(
          { _id: 'f' },
          { $inc: { n: 1 } },
          { returnDocument: 'after', projection: { secret: 0 } },
        );
        expect(after).to.deep.equal({ _id: 'f', n: 3 });
        expect(await c.findOneAndUpdate({ _id: 'none' }, { $inc: { n: 1 } })).to.equal(null);
        expect(await c.countDocuments({})).to.equal(1);
      });

      it('findOneAndUpdate picks the first document in sort order and can upsert', async () => {
        const c = fresh();
        await c.insertMany([
          { _id: 1, n: 1 },
          { _id: 2, n: 3 },
          { _id: 3, n: 2 },
        ]);
        const options = { sort: { n: -1 as const }, returnDocument: 'after' as const };
        expect(await c.findOneAndUpdate({}, { $set: { picked: true } }, options)).to.deep.equal({
          _id: 2,
          n: 3,
          picked: true,
        });
        expect(await c.findOneAndUpdate({ _id: 'up' }, { $set: { n: 9 } }, { upsert: true })).to.equal(null);
        expect(await c.findOne({ _id: 'up' })).to.deep.equal({ _id: 'up', n: 9 });
        const inserted = await c.findOneAndUpdate(
          { key: 'k' },
          { $setOnInsert: { n: 0 } },
          { upsert: true, returnDocument: 'after' },
        );
        expect(withoutId(inserted)).to.deep.equal({ key: 'k', n: 0 });
      });

      it('findOneAndDelete returns the deleted document; deletes report counts', async () => {
        const c = fresh();
        await c.insertMany([
          { _id: 1, k: 'a' },
          { _id: 2, k: 'a' },
          { _id: 3, k: 'b' },
          { _id: 4, k: 'b' },
        ]);
        expect(await c.findOneAndDelete({ _id: 1 })).to.deep.equal({ _id: 1, k: 'a' });
        expect(await c.findOneAndDelete({ _id: 1 })).to.equal(null);
        expect(await c.deleteOne({ k: 'b' })).to.equal(1);
        expect(await c.deleteOne({ k: 'zzz' })).to.equal(0);
        expect(await c.deleteMany({ k: { $in: ['a', 'b'] } })).to.equal(2);
        expect(await c.deleteMany({})).to.equal(0);
        expect(await c.countDocuments({})).to.equal(0);
      });
    });

    describe('unique indexes', () => {
      async function usersWithEmailIndex(): Promise<DocumentCollection> {
        const c = fresh();
        await c.createIndex({ keys: { email: 1 }, unique: true });
        await c.insertMany([
          { _id: 'u1', email: 'a@x' },
          { _id: 'u2', email: 'b@x' },
        ]);
        return c;
      }
      const original = [
        { _id: 'u1', email: 'a@x' },
        { _id: 'u2', email: 'b@x' },
      ];

      it('rejects inserts of a taken key with DuplicateKeyError', async () => {
        const c = await usersWithEmailIndex();
        const error = await duplicateKey(c.insertOne({ _id: 'u3', email: 'a@x' }));
        expect(error.collection).to.equal(c.name);
        expect(error.keyPattern).to.deep.equal({ email: 1 });
        expect(await c.find({}, { sort: { _id: 1 } })).to.deep.equal(original);
      });

      it('rejects updates, replacements, upserts and findOneAndUpdate that would duplicate a key', async () => {
        const c = await usersWithEmailIndex();
        await duplicateKey(c.updateOne({ _id: 'u2' }, { $set: { email: 'a@x' } }));
        await duplicateKey(c.replaceOne({ _id: 'u2' }, { email: 'a@x' }));
        await duplicateKey(c.updateOne({ _id: 'u3' }, { $set: { email: 'a@x' } }, { upsert: true }));
        await duplicateKey(c.replaceOne({ _id: 'u3' }, { email: 'a@x' }, { upsert: true }));
        await duplicateKey(c.findOneAndUpdate({ _id: 'u2' }, { $set: { email: 'a@x' } }));
        await duplicateKey(c.findOneAndUpdate({ email: 'a@x', n: 1 }, { $set: { v: 1 } }, { upsert: true }));
        expect(await c.find({}, { sort: { _id: 1 } })).to.deep.equal(original);
        await c.updateOne({ _id: 'u2' }, { $set: { email: 'c@x' } });
        await c.insertOne({ _id: 'u3', email: 'b@x' });
        expect(await c.countDocuments({})).to.equal(3);
      });

      it('enforces compound keys on the combination of fields', async () => {
        const c = fresh();
        await c.createIndex({ keys: { tenant: 1, email: 1 }, unique: true });
        await c.insertMany([
          { tenant: 't1', email: 'a' },
          { tenant: 't2', email: 'a' },
          { tenant: 't1', email: 'b' },
        ]);
        const error = await duplicateKey(c.insertOne({ tenant: 't1', email: 'a' }));
        expect(error.keyPattern).to.deep.equal({ tenant: 1, email: 1 });
        expect(await c.countDocuments({})).to.equal(3);
      });

      it('indexes missing fields as null unless the index is sparse', async () => {
        const plain = fresh();
        await plain.createIndex({ keys: { code: 1 }, unique: true });
        await plain.insertOne({ _id: 1 });
        await duplicateKey(plain.insertOne({ _id: 2 }));
        await duplicateKey(plain.insertOne({ _id: 3, code: null }));

        const sparse = fresh();
        await sparse.createIndex({ keys: { code: 1 }, unique: true, sparse: true });
        await sparse.insertMany([{ _id: 1 }, { _id: 2 }, { _id: 3, code: 'c' }]);
        await duplicateKey(sparse.insertOne({ _id: 4, code: 'c' }));
        expect(ids(await sparse.find({}, { sort: { _id: 1 } }))).to.deep.equal([1, 2, 3]);
      });

      it('treats each element of an array field as a key', async () => {
        const c = fresh();
        await c.createIndex({ keys: { aliases: 1 }, unique: true });
        await c.insertOne({ _id: 1, aliases: ['a', 'b'] });
        await c.updateOne({ _id: 1 }, { $push: { aliases: 'a' } });
        await duplicateKey(c.insertOne({ _id: 2, aliases: ['c', 'b'] }));
        await c.insertOne({ _id: 3, aliases: ['c'] });
        expect(await c.countDocuments({})).to.equal(2);
      });

      it('refuses to build a unique index over duplicate data, and tolerates repeated createIndex', async () => {
        const c = fresh();
        await c.insertMany([
          { _id: 1, email: 'a' },
          { _id: 2, email: 'a' },
        ]);
        const error = await duplicateKey(c.createIndex({ keys: { email: 1 }, unique: true }));
        expect(error.keyPattern).to.deep.equal({ email: 1 });
        await c.insertOne({ _id: 3, email: 'a' });
        await c.deleteMany({ _id: { $in: [2, 3] } });
        await c.createIndex({ keys: { email: 1 }, unique: true });
        await c.createIndex({ keys: { email: 1 }, unique: true });
        await duplicateKey(c.insertOne({ _id: 4, email: 'a' }));
      });
    });

    describe('TTL indexes', () => {
      it('removes documents whose date has passed, and only those', async function () {
        this.timeout(backend.ttlDelayMs + 10_000);
        const c = fresh();
        await c.createIndex({ keys: { expiresAt: 1 }, expireAfterSeconds: 0 });
        await c.insertMany([
          { _id: 'past', expiresAt: new Date(Date.now() - 60_000) },
          { _id: 'future', expiresAt: new Date(Date.now() + 3_600_000) },
          { _id: 'never' },
          { _id: 'not-a-date', expiresAt: 'yesterday' },
        ]);
        await removedWithin(async () => (await c.findOne({ _id: 'past' })) === null, backend.ttlDelayMs);
        expect(ids(await c.find({}, { sort: { _id: 1 } }))).to.deep.equal(['future', 'never', 'not-a-date']);
        expect(await c.countDocuments({})).to.equal(3);
        expect(await c.findOneAndUpdate({ _id: 'past' }, { $set: { a: 1 } })).to.equal(null);
        expect(await c.deleteOne({ _id: 'past' })).to.equal(0);
      });

      it('counts expireAfterSeconds from the date', async function () {
        this.timeout(backend.ttlDelayMs + 10_000);
        const c = fresh();
        await c.createIndex({ keys: { createdAt: 1 }, expireAfterSeconds: 3600 });
        await c.insertMany([
          { _id: 'recent', createdAt: new Date(Date.now() - 60_000) },
          { _id: 'old', createdAt: new Date(Date.now() - 7_200_000) },
        ]);
        await removedWithin(async () => (await c.countDocuments({})) === 1, backend.ttlDelayMs);
        expect(ids(await c.find({}))).to.deep.equal(['recent']);
      });
    });
  });
}

documentStoreContract(memoryBackend());
documentStoreContract(sqliteBackend());
documentStoreContract(mongoBackend(process.env.MONGODB_URI));
