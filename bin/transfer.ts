/**
 * Moving the data between backends (`npm run export` / `npm run import`): one NDJSON file, a header line and then one
 * line per document (every collection), key (with its expiry) and pending delivery (with its attempts and next run).
 * Documents are written in the SQLite store's tagged JSON (adapters/sqlite/codec.ts), so dates and binaries arrive
 * as they left, whichever backend reads them back.
 *
 * Sources: documents from MongoDB (MONGODB_URI) or the SQLite file; keys from Redis (REDIS_URL) or the file; pending
 * deliveries from the file (a Redis queue is not read: let it drain first). The file is read in one read transaction,
 * so the export is consistent while the service serves. Targets: whatever the service itself would open (openStores),
 * which must be empty: an import never mixes its data with data already there.
 */
import { once } from 'node:events';
import { createReadStream, createWriteStream, existsSync, type WriteStream } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { DatabaseSync } from 'node:sqlite';
import { Redis } from 'ioredis';
import { decodeDocument, encodeDocument } from '../adapters/sqlite/codec.ts';
import type { DeliveryJob } from '../lib/ports/queue.ts';
import type { Settings } from '../lib/settings.ts';
import type { Stores } from '../app/stores.ts';

export const FORMAT = 'identity-service-export';
export const FORMAT_VERSION = 1;

/** The key-value store's namespace on Redis (app/stores.ts). */
const REDIS_PREFIX = 'ids:';
const BATCH = 500;

export interface Counts {
  documents: number;
  keys: number;
  deliveries: number;
}

type Line = string;

/** Writes lines with back-pressure. */
async function writeLine(out: WriteStream, line: Line): Promise<void> {
  if (!out.write(`${line}\n`)) await once(out, 'drain');
}

/** Every line of an export, read from the configured sources. */
async function* exportLines(settings: Settings, counts: Counts): AsyncIterable<Line> {
  yield JSON.stringify({
    type: 'format',
    format: FORMAT,
    version: FORMAT_VERSION,
    exportedAt: new Date().toISOString(),
  });
  const local = !settings.MONGODB_URI || !settings.REDIS_URL;
  if (local && settings.storage === 'memory')
    throw new Error('STORAGE=memory keeps nothing another process can export');
  const file = local ? openFile(settings) : undefined;
  try {
    file?.exec('BEGIN');
    if (settings.MONGODB_URI) yield* mongoDocuments(settings.MONGODB_URI, counts);
    else if (file) yield* fileDocuments(file, counts);
    if (settings.REDIS_URL) yield* redisKeys(settings.REDIS_URL, counts);
    else if (file) yield* fileKeys(file, counts);
    if (file && !settings.REDIS_URL) yield* fileDeliveries(file, counts);
  } finally {
    if (file?.isTransaction) file.exec('COMMIT');
    file?.close();
  }
}

function openFile(settings: Settings): DatabaseSync {
  const path = join(resolve(settings.DATA_DIR), 'identity.sqlite');
  if (!existsSync(path)) throw new Error(`no database to export at ${path} (DATA_DIR=${settings.DATA_DIR})`);
  return new DatabaseSync(path, { timeout: 10_000 });
}

function* fileDocuments(file: DatabaseSync, counts: Counts): Iterable<Line> {
  for (const row of file.prepare('SELECT collection, doc FROM documents ORDER BY rowid').iterate()) {
    counts.documents += 1;
    yield `{"type":"document","collection":${JSON.stringify(row.collection)},"doc":${String(row.doc)}}`;
  }
  const tables = file
    .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name LIKE 'collection:%' ORDER BY name")
    .all();
  for (const { name } of tables) {
    const table = String(name);
    const collection = JSON.stringify(table.slice('collection:'.length));
    const rows = file.prepare(
      `SELECT doc FROM "${table.replaceAll('"', '""')}" WHERE expires_at IS NULL OR expires_at > ? ORDER BY rowid`,
    );
    for (const row of rows.iterate(Date.now())) {
      counts.documents += 1;
      yield `{"type":"document","collection":${collection},"doc":${String(row.doc)}}`;
    }
  }
}

function* fileKeys(file: DatabaseSync, counts: Counts): Iterable<Line> {
  const rows = file.prepare(
    'SELECT key, value, expires_at FROM kv WHERE expires_at IS NULL OR expires_at > ? ORDER BY key',
  );
  for (const row of rows.iterate(Date.now())) {
    counts.keys += 1;
    yield JSON.stringify({ type: 'key', key: row.key, value: row.value, expiresAt: row.expires_at });
  }
}

function* fileDeliveries(file: DatabaseSync, counts: Counts): Iterable<Line> {
  for (const row of file.prepare('SELECT job, attempt, errors, run_at FROM delivery_jobs ORDER BY run_at').iterate()) {
    counts.deliveries += 1;
    yield `{"type":"delivery","job":${String(row.job)},"attempt":${Number(row.attempt)},"errors":${Number(row.errors)},"runAt":${Number(row.run_at)}}`;
  }
}

async function* mongoDocuments(uri: string, counts: Counts): AsyncIterable<Line> {
  const { MongoClient } = await import('mongodb');
  const client = await MongoClient.connect(uri, { serverSelectionTimeoutMS: 5000 });
  try {
    const db = client.db();
    for (const { name } of await db.listCollections({}, { nameOnly: true }).toArray()) {
      if (name.startsWith('system.')) continue;
      for await (const doc of db.collection(name).find({}, { promoteBuffers: true })) {
        counts.documents += 1;
        yield `{"type":"document","collection":${JSON.stringify(name)},"doc":${encodeDocument(doc)}}`;
      }
    }
  } finally {
    await client.close();
  }
}

async function* redisKeys(url: string, counts: Counts): AsyncIterable<Line> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${REDIS_PREFIX}*`, 'COUNT', 1000);
      cursor = next;
      for (const key of keys) {
        const [value, ttl] = await Promise.all([redis.get(key), redis.pttl(key)]);
        if (value === null || ttl === -2) continue;
        counts.keys += 1;
        yield JSON.stringify({
          type: 'key',
          key: key.slice(REDIS_PREFIX.length),
          value,
          expiresAt: ttl === -1 ? null : Date.now() + ttl,
        });
      }
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

/** Writes the export of the configured backends to `path` (which must not exist). */
export async function exportTo(settings: Settings, path: string): Promise<Counts> {
  const counts: Counts = { documents: 0, keys: 0, deliveries: 0 };
  const out = createWriteStream(path, { flags: 'wx', mode: 0o600 });
  await once(out, 'open');
  try {
    for await (const line of exportLines(settings, counts)) await writeLine(out, line);
  } finally {
    out.end();
    await once(out, 'close');
  }
  return counts;
}

interface DocumentLine {
  type: 'document';
  collection: string;
  doc: unknown;
}
interface KeyLine {
  type: 'key';
  key: string;
  value: string;
  expiresAt: number | null;
}
interface DeliveryLine {
  type: 'delivery';
  job: DeliveryJob;
  attempt: number;
  errors: number;
  runAt: number;
}

/** Reads an export into the (empty) stores. Throws an Error whose message says what is wrong, on the first problem. */
export async function importFrom(path: string, stores: Stores): Promise<Counts> {
  const counts: Counts = { documents: 0, keys: 0, deliveries: 0 };
  const lines = createInterface({ input: createReadStream(path), crlfDelay: Number.POSITIVE_INFINITY });
  const pending = new Map<string, Array<Record<string, unknown>>>();
  const checked = new Set<string>();
  const deliveries: DeliveryLine[] = [];
  const flushDocuments = async (collection: string) => {
    const docs = pending.get(collection);
    if (!docs || docs.length === 0) return;
    pending.set(collection, []);
    const target = stores.documents.collection(collection);
    if (!checked.has(collection)) {
      if ((await target.countDocuments({})) > 0)
        throw new Error(
          `the collection ${collection} of the target already holds documents: import into an empty store`,
        );
      checked.add(collection);
    }
    await target.insertMany(docs);
  };
  const flushDeliveries = async () => {
    const batch = deliveries.splice(0);
    if (batch.length === 0) return;
    if (stores.sqlite) {
      const database = stores.sqlite;
      await database.write(() => {
        const insert = database.statement(
          'INSERT INTO delivery_jobs (delivery_id, job, attempt, errors, run_at) VALUES (?, ?, ?, ?, ?)',
        );
        for (const { job, attempt, errors, runAt } of batch)
          insert.run(job.deliveryId, JSON.stringify(job), attempt, errors, runAt);
      });
    } else {
      // A Redis queue stores jobs, not their history: each starts again at its first attempt.
      await stores.queue.enqueue(batch.map((line) => line.job));
    }
  };
  let number = 0;
  for await (const text of lines) {
    number += 1;
    if (text.trim() === '') continue;
    let line: { type?: unknown } & Record<string, unknown>;
    try {
      line = JSON.parse(text) as typeof line;
    } catch {
      throw new Error(`${path}:${number}: not a JSON line`);
    }
    if (number === 1) {
      if (line.type !== 'format' || line.format !== FORMAT) throw new Error(`${path} is not an export of this service`);
      if (line.version !== FORMAT_VERSION)
        throw new Error(`${path} is an export of format ${String(line.version)}; this version reads ${FORMAT_VERSION}`);
      continue;
    }
    if (line.type === 'document') {
      const { collection, doc } = line as unknown as DocumentLine;
      const docs = pending.get(collection) ?? [];
      docs.push(decodeDocument(JSON.stringify(doc)));
      pending.set(collection, docs);
      counts.documents += 1;
      if (docs.length >= BATCH) await flushDocuments(collection);
    } else if (line.type === 'key') {
      const { key, value, expiresAt } = line as unknown as KeyLine;
      const ttl = expiresAt === null ? undefined : expiresAt - Date.now();
      if (ttl !== undefined && ttl <= 0) continue;
      await stores.kv.set(key, value, ttl);
      counts.keys += 1;
    } else if (line.type === 'delivery') {
      deliveries.push(line as unknown as DeliveryLine);
      counts.deliveries += 1;
      if (deliveries.length >= BATCH) await flushDeliveries();
    } else {
      throw new Error(`${path}:${number}: unknown line type ${String(line.type)}`);
    }
  }
  if (number === 0) throw new Error(`${path} is empty`);
  for (const collection of pending.keys()) await flushDocuments(collection);
  await flushDeliveries();
  return counts;
}
