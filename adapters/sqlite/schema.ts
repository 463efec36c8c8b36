/**
 * The database's schema, as a list of forward migrations: migration `i` takes a file from version `i` to `i + 1`.
 * A file is brought to the latest version in one transaction when it is opened; a file of a newer version than this
 * build knows is refused, so an older build never writes over what it does not understand.
 */
import type { DatabaseSync } from 'node:sqlite';

export const MIGRATIONS: ReadonlyArray<(db: DatabaseSync) => void> = [
  // 1: documents of the in-memory collections, the key-value store and the delivery queue.
  (db) =>
    db.exec(`
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
    CREATE TABLE documents (collection TEXT NOT NULL, id TEXT NOT NULL, doc TEXT NOT NULL, UNIQUE (collection, id));
    CREATE TABLE kv (key TEXT PRIMARY KEY, value TEXT NOT NULL, expires_at INTEGER) WITHOUT ROWID;
    CREATE TABLE delivery_jobs (
      delivery_id TEXT PRIMARY KEY, job TEXT NOT NULL, attempt INTEGER NOT NULL, errors INTEGER NOT NULL, run_at INTEGER NOT NULL
    ) WITHOUT ROWID;
  `),
  // 2: expired keys found without reading every key.
  (db) => db.exec('CREATE INDEX kv_expiry ON kv (expires_at) WHERE expires_at IS NOT NULL'),
  // 3: queued jobs in a rowid table: each job's text (its payload, often a kilobyte) in the table's pages, appended in
  // the order jobs come, and only its id in the key's index. Without rowid the whole row sat in the key's b-tree, at a
  // random place per job, and a large one spilled into overflow pages.
  (db) =>
    db.exec(`
    CREATE TABLE delivery_jobs_rowid (
      delivery_id TEXT PRIMARY KEY, job TEXT NOT NULL, attempt INTEGER NOT NULL, errors INTEGER NOT NULL, run_at INTEGER NOT NULL
    );
    INSERT INTO delivery_jobs_rowid (delivery_id, job, attempt, errors, run_at)
      SELECT delivery_id, job, attempt, errors, run_at FROM delivery_jobs;
    DROP TABLE delivery_jobs;
    ALTER TABLE delivery_jobs_rowid RENAME TO delivery_jobs;
  `),
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/** The file's schema version: 0 for a new (empty) file; null for a database this service did not create. */
export function schemaVersion(db: DatabaseSync): number | null {
  const tables = db
    .prepare("SELECT name FROM sqlite_schema WHERE type = 'table'")
    .all()
    .map((row) => String(row.name));
  if (tables.length === 0) return 0;
  if (!tables.includes('meta')) return null;
  const row = db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get();
  return row ? Number(row.value) : null;
}

/** Brings the file from `from` to `to` (default: the latest version), in the transaction the caller holds. */
export function migrate(db: DatabaseSync, from: number, to = SCHEMA_VERSION): void {
  for (let version = from; version < to; version += 1) MIGRATIONS[version]!(db);
  db.prepare(
    "INSERT INTO meta (key, value) VALUES ('schema_version', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
  ).run(String(to));
}
