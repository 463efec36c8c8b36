/**
 * The SQLite store in process: what it writes is in the file once acknowledged and reads back exactly after a reopen;
 * a write that cannot be made durable is undone; the file is refused when it cannot be used safely.
 */
import { expect } from 'chai';
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { openSqliteDatabase, type SqliteDatabase } from '../../adapters/sqlite/database.ts';
import { createSqliteDeliveryQueue } from '../../adapters/sqlite/delivery-queue.ts';
import { createSqliteDocumentStore } from '../../adapters/sqlite/documents.ts';
import { createSqliteKeyValueStore } from '../../adapters/sqlite/kv.ts';
import { MIGRATIONS, SCHEMA_VERSION, migrate } from '../../adapters/sqlite/schema.ts';
import { DurableWriteError, type DocumentStore } from '../../lib/ports/documents.ts';
import type { DeliveryJob } from '../../lib/ports/queue.ts';
import { tempDataDir } from '../support/sqlite.ts';
import { eventually } from '../support/wait.ts';

const open = (dataDir: string) => openSqliteDatabase({ dataDir, synchronous: 'FULL' });
const storeOf = (database: SqliteDatabase) => createSqliteDocumentStore(database, { diskResident: ['logs'] });

async function refusal(work: () => unknown): Promise<string> {
  try {
    await work();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected a refusal');
}

describe('SQLite store: what is acknowledged is in the file', () => {
  let dataDir: string;
  let database: SqliteDatabase | undefined;
  beforeEach(() => {
    dataDir = tempDataDir();
  });
  afterEach(async () => {
    await database?.close();
    database = undefined;
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('creates the directory 0700 and the file 0600', () => {
    const nested = join(dataDir, 'nested', 'data');
    database = open(nested);
    expect(statSync(nested).mode & 0o777).to.equal(0o700);
    expect(statSync(join(nested, 'identity.sqlite')).mode & 0o777).to.equal(0o600);
  });

  it('reads every document, key and queued delivery back exactly after a reopen', async () => {
    database = open(dataDir);
    let store: DocumentStore = storeOf(database);
    const odd = {
      _id: 'odd',
      at: new Date('2024-05-06T07:08:09.010Z'),
      bytes: new Uint8Array([0, 1, 254, 255]),
      nested: { deep: [1, { x: null }] },
      pattern: /^a.b$/i,
      nan: Number.NaN,
      infinite: Number.NEGATIVE_INFINITY,
      negativeZero: -0,
      big: 12345678901234567890n,
      dollars: { $notATag: true, plain: 'x' },
      text: 'unicode ✓ \u0000 end',
      empty: {},
      list: [],
    };
    const people = store.collection('people');
    await people.createIndex({ keys: { email: 1 }, unique: true, sparse: true });
    await people.insertMany([
      { _id: 'b', email: 'b@example.com' },
      odd,
      { _id: 'a', email: 'a@example.com' },
      { _id: 7, n: 1 },
    ]);
    await people.updateOne({ _id: 'b' }, { $set: { name: 'Bee' } });
    await people.deleteOne({ _id: 'a' });
    await store.collection('logs').createIndex({ keys: { hookId: 1, createdAt: -1 } });
    await store.collection('logs').insertMany([
      { _id: 'l1', hookId: 'h', createdAt: 1 },
      { _id: 'l2', hookId: 'h', createdAt: 2 },
    ]);
    const kv = createSqliteKeyValueStore(database);
    await kv.set('kept', 'value');
    await kv.set('expiring', 'soon', 60_000);
    await kv.set('short', 'gone', 1);
    await kv.incr('counter', 60_000);
    await kv.incr('counter', 60_000);
    const job: DeliveryJob = {
      deliveryId: 'dlv_1',
      hookId: 'h',
      event: 'User.Created',
      payload: '{"a":1}',
      createdAt: 5,
    };
    const queue = createSqliteDeliveryQueue(database);
    await queue.enqueue([job]);
    await queue.close();
    await kv.close();
    await store.close();
    await database.close();

    database = open(dataDir);
    store = storeOf(database);
    const reopened = store.collection('people');
    expect(await reopened.find({})).to.deep.equal([
      { _id: 'b', email: 'b@example.com', name: 'Bee' },
      odd,
      { _id: 7, n: 1 },
    ]);
    const back = await reopened.findOne({ _id: 'odd' });
    expect(back!.at).to.be.instanceOf(Date);
    expect(Object.is(back!.negativeZero, -0)).to.equal(true);
    // Unique indexes are rebuilt from the documents read back.
    await reopened.createIndex({ keys: { email: 1 }, unique: true, sparse: true });
    const duplicate = await reopened.insertOne({ email: 'b@example.com' }).then(
      () => null,
      (error: { code?: number }) => error.code,
    );
    expect(duplicate).to.equal(11000);
    expect(await store.collection('logs').find({ hookId: 'h' }, { sort: { createdAt: -1 } })).to.deep.equal([
      { _id: 'l2', hookId: 'h', createdAt: 2 },
      { _id: 'l1', hookId: 'h', createdAt: 1 },
    ]);
    const kvBack = createSqliteKeyValueStore(database);
    expect(await kvBack.getMany(['kept', 'expiring', 'short', 'counter'])).to.deep.equal(['value', 'soon', null, '2']);
    expect(await kvBack.ttl('expiring')).to.be.within(1, 60_000);
    const queueBack = createSqliteDeliveryQueue(database);
    const seen: Array<[DeliveryJob, number]> = [];
    await queueBack.consume(
      async (delivered, attempt) => {
        seen.push([delivered, attempt]);
        return {};
      },
      { concurrency: 1 },
    );
    await eventually(() => seen.length === 1, { what: 'the restored delivery attempted' });
    expect(seen).to.deep.equal([[job, 1]]);
    await queueBack.close();
    await kvBack.close();
    await store.close();
  });

  it('has a commit in the file, for another connection to read, by the time it is acknowledged', async () => {
    database = open(dataDir);
    const store = storeOf(database);
    const reader = new DatabaseSync(join(dataDir, 'identity.sqlite'), { readOnly: true });
    try {
      const inFile = () => reader.prepare("SELECT count(*) AS n FROM documents WHERE collection = 'seen'").get()!.n;
      await store.transaction(async () => {
        await store.collection('seen').insertOne({ _id: 'x' });
        await store.collection('seen').insertOne({ _id: 'y' });
        expect(inFile(), 'nothing before the commit').to.equal(0);
      });
      expect(inFile()).to.equal(2);
      await Promise.all(Array.from({ length: 50 }, (_, i) => store.collection('seen').insertOne({ _id: `many-${i}` })));
      expect(inFile()).to.equal(52);
    } finally {
      reader.close();
      await store.close();
    }
  });

  it('undoes a write that cannot be made durable, rejects it with DurableWriteError, and writes again once it can', async () => {
    database = open(dataDir);
    const store = storeOf(database);
    const kv = createSqliteKeyValueStore(database);
    const people = store.collection('people');
    const kept = createSqliteDocumentStore(database, { diskResident: ['logs'], keepInserted: { logs: 10 } }).collection(
      'logs',
    );
    await people.insertOne({ _id: 'p', n: 1 });
    await kv.set('k', 'before');
    // The connection refuses every change from now on, as a full or read-only disk would.
    database.db.exec('PRAGMA query_only = ON');
    const outcomes = await Promise.allSettled([
      store.transaction(async () => {
        await people.updateOne({ _id: 'p' }, { $inc: { n: 1 } });
        await people.insertOne({ _id: 'q' });
      }),
      people.insertOne({ _id: 'r' }),
      kept.insertOne({ _id: 'l', hookId: 'h' }),
      kv.set('k', 'after'),
      kv.getDel('k'),
    ]);
    for (const outcome of outcomes) {
      expect(outcome.status).to.equal('rejected');
      expect((outcome as PromiseRejectedResult).reason).to.be.instanceOf(DurableWriteError);
    }
    expect(await people.find({}, { sort: { _id: 1 } })).to.deep.equal([{ _id: 'p', n: 1 }]);
    // A disk-resident collection keeping its inserts in memory forgets the one that was not written.
    expect(await kept.findOne({ _id: 'l' })).to.equal(null);
    expect(await kept.countDocuments({})).to.equal(0);
    expect(await kv.get('k')).to.equal('before');
    // A take is decided at once, and put back when its removal cannot be made durable.
    const taken = await kv.take('k');
    expect(taken.value).to.equal('before');
    expect(
      await taken.durable.then(
        () => null,
        (error: unknown) => error,
      ),
    ).to.be.instanceOf(DurableWriteError);
    expect(await kv.get('k')).to.equal('before');
    database.db.exec('PRAGMA query_only = OFF');
    await people.updateOne({ _id: 'p' }, { $inc: { n: 1 } });
    await kv.set('k', 'after');
    await kv.close();
    await store.close();
    await database.close();
    database = open(dataDir);
    const again = storeOf(database);
    expect(await again.collection('people').find({})).to.deep.equal([{ _id: 'p', n: 2 }]);
    expect(await createSqliteKeyValueStore(database).get('k')).to.equal('after');
    await again.close();
  });
});

describe('SQLite store: refusals', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = tempDataDir();
  });
  afterEach(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('lets one opener hold a data directory, and names the holding process to the next', async () => {
    const first = open(dataDir);
    try {
      const message = await refusal(() => open(dataDir));
      expect(message).to.match(new RegExp(`DATA_DIR ${dataDir} is in use by process ${process.pid} on `));
    } finally {
      await first.close();
    }
    await open(dataDir).close();
  });

  it('refuses a file that is not a database, and leaves it as it was', async () => {
    const path = join(dataDir, 'identity.sqlite');
    writeFileSync(path, 'these are not the pages of a database, but they are long enough to have a header '.repeat(20));
    const before = readFileSync(path);
    expect(await refusal(() => open(dataDir))).to.equal(`cannot use the database ${path}: it is not a SQLite database`);
    expect(readFileSync(path).equals(before)).to.equal(true);
  });

  it('refuses a database of another application', async () => {
    const path = join(dataDir, 'identity.sqlite');
    const other = new DatabaseSync(path);
    other.exec('CREATE TABLE invoices (id INTEGER PRIMARY KEY)');
    other.close();
    expect(await refusal(() => open(dataDir))).to.equal(
      `cannot use the database ${path}: it was not created by this service`,
    );
  });

  it('migrates an older file forward, keeping its data, and refuses a newer one', async () => {
    const path = join(dataDir, 'identity.sqlite');
    const old = new DatabaseSync(path);
    old.exec('BEGIN');
    migrate(old, 0, 1);
    old.exec('COMMIT');
    old
      .prepare('INSERT INTO documents (collection, id, doc) VALUES (\'people\', \'p\', \'{"_id":"p","name":"kept"}\')')
      .run();
    const job = { deliveryId: 'dlv_kept', hookId: 'h', event: 'User.Created', payload: '{}', createdAt: 1 };
    old
      .prepare('INSERT INTO delivery_jobs (delivery_id, job, attempt, errors, run_at) VALUES (?, ?, 1, 0, 2)')
      .run(job.deliveryId, JSON.stringify(job));
    old.close();
    expect(SCHEMA_VERSION).to.be.greaterThan(1);
    let database = open(dataDir);
    const version = database.db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get()!.value;
    expect(Number(version)).to.equal(MIGRATIONS.length);
    const indexes = database.db
      .prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND name = 'kv_expiry'")
      .all();
    expect(indexes, 'the second migration ran').to.have.length(1);
    const jobs = database.db
      .prepare("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = 'delivery_jobs'")
      .get();
    expect(String(jobs!.sql), 'the third migration ran').to.not.include('WITHOUT ROWID');
    expect(
      database.db.prepare('SELECT delivery_id, job, attempt, errors, run_at FROM delivery_jobs').all(),
    ).to.deep.equal([{ delivery_id: 'dlv_kept', job: JSON.stringify(job), attempt: 1, errors: 0, run_at: 2 }]);
    const store = storeOf(database);
    expect(await store.collection('people').findOne({ _id: 'p' })).to.deep.equal({ _id: 'p', name: 'kept' });
    await store.close();
    database.db.prepare("UPDATE meta SET value = ? WHERE key = 'schema_version'").run(String(SCHEMA_VERSION + 1));
    await database.close();
    const before = readFileSync(path);
    expect(await refusal(() => open(dataDir))).to.equal(
      `cannot use the database ${path}: it has schema version ${SCHEMA_VERSION + 1}, newer than this version of the service knows ` +
        `(${SCHEMA_VERSION}); run the newer version`,
    );
    expect(readFileSync(path).equals(before), 'nothing written').to.equal(true);
    database = undefined!;
  });
});
