/**
 * The SQL indexes of a disk-resident collection end with the expiry column, and a date range on the TTL field is
 * said with that column: a count of one hook's unexpired logs since some time (the recent-logs list's
 * `Total-Number`) reads the index alone, without a row, and answers what the in-memory store answers. An index an
 * older build made without the expiry column is made again when the service next prepares it.
 */
import { expect } from 'chai';
import { rmSync } from 'node:fs';
import { createMemoryDocumentStore } from '../../adapters/memory/documents.ts';
import { openSqliteDatabase } from '../../adapters/sqlite/database.ts';
import { createSqliteDocumentStore } from '../../adapters/sqlite/documents.ts';
import type { Doc, IndexSpec } from '../../lib/ports/documents.ts';
import { tempDataDir } from '../support/sqlite.ts';

const INDEXES: IndexSpec[] = [
  { keys: { hookId: 1, createdAt: -1 } },
  { keys: { expiresAt: 1 }, expireAfterSeconds: 0 },
];
const TABLE = '"collection:logs"';
const INDEX = 'collection:logs:hookId_1_createdAt_-1';

function logs(now: number): Doc[] {
  return Array.from({ length: 300 }, (_, n) => ({
    _id: `l${n}`,
    hookId: `h${n % 3}`,
    createdAt: now - n * 60_000,
    // A third expired, a few without an expiry date at all.
    expiresAt: n % 29 === 0 ? 'never' : new Date(now + (n % 3 === 0 ? -1 : 1) * 3_600_000 + n),
  }));
}

describe('SQLite store: the expiry column in disk-resident indexes', () => {
  const dataDir = tempDataDir();
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  async function open() {
    const database = openSqliteDatabase({ dataDir, synchronous: 'NORMAL' });
    const store = createSqliteDocumentStore(database, { diskResident: ['logs'] });
    const collection = store.collection('logs');
    for (const spec of INDEXES) await collection.createIndex(spec);
    return { database, store, collection };
  }

  it('counts unexpired rows of a key range from the index alone, as the in-memory store counts them', async () => {
    const now = Date.now();
    const { database, store, collection } = await open();
    const memory = createMemoryDocumentStore().collection('logs');
    for (const spec of INDEXES) await memory.createIndex(spec);
    const docs = logs(now);
    await collection.insertMany(structuredClone(docs));
    await memory.insertMany(structuredClone(docs));
    // The SQL the store prepares is kept, to be explained below.
    const prepared: string[] = [];
    const prepare = database.db.prepare.bind(database.db);
    database.db.prepare = (sql: string) => {
      prepared.push(sql);
      return prepare(sql);
    };
    const recent = { hookId: 'h1', createdAt: { $gte: now - 120 * 60_000 }, expiresAt: { $gt: new Date(now) } };
    const counted = await collection.countDocuments(recent);
    database.db.prepare = prepare;
    expect(counted)
      .to.equal(await memory.countDocuments(recent))
      .and.to.be.above(10);
    for (const filter of [
      { expiresAt: { $gte: new Date(now + 3_600_100) } },
      { expiresAt: { $lt: new Date(now + 3_600_200), $gt: new Date(now) } },
      { expiresAt: 'never' },
    ]) {
      expect(await collection.countDocuments(filter), JSON.stringify(filter)).to.equal(
        await memory.countDocuments(filter),
      );
    }
    const count = prepared.find((sql) => sql.startsWith('SELECT count(*)'));
    expect(count, 'the count is made in SQL').to.be.a('string');
    const plan = database.db
      .prepare(`EXPLAIN QUERY PLAN ${count}`)
      .all()
      .map((row) => String(row.detail));
    expect(plan.join(' '), 'the count reads the covering index').to.include(`USING COVERING INDEX ${INDEX}`);
    await store.close();
    await database.close();
  });

  it('makes again an index an older build made without the expiry column', async () => {
    const first = openSqliteDatabase({ dataDir, synchronous: 'NORMAL' });
    first.db.exec(`DROP INDEX "${INDEX}"`);
    first.db.exec(`CREATE INDEX "${INDEX}" ON ${TABLE} ("t:hookId", "v:hookId", "t:createdAt", "v:createdAt" DESC)`);
    await first.close();
    const { database, store, collection } = await open();
    await database.settled();
    const sql = String(database.db.prepare('SELECT sql FROM sqlite_schema WHERE name = ?').get(INDEX)!.sql);
    expect(sql).to.match(/"v:createdAt" DESC, expires_at\)$/);
    expect(await collection.countDocuments({ hookId: 'h2' })).to.equal(100);
    await store.close();
    await database.close();
  });
});
