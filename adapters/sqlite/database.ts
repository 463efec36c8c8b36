/**
 * The SQLite file everything embedded is kept in (`DATA_DIR/identity.sqlite`), opened once per process with
 * `node:sqlite`: WAL journal, the chosen `synchronous` level, a busy timeout, the schema brought up to date.
 *
 * Group commit: every write (a document commit, a key-value change, a queue change) runs at once inside the open
 * SQLite transaction, which the first write opens (`BEGIN IMMEDIATE`) and which commits when that turn of the event
 * loop ends (`setImmediate`), or, right after another commit, once twice that commit's time has passed: the writes
 * made meanwhile share one commit, and one fsync with `synchronous = FULL`. Each write's promise settles with that commit. When it fails (disk full, read-only file, I/O
 * error), the transaction is rolled back, the in-memory changes of those writes are undone newest first, and every
 * one of them rejects with DurableWriteError; the next turn tries afresh, so the service recovers once the
 * disk does.
 */
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { StoreUnavailableError } from '../../lib/store-unavailable.ts';
import { DurableWriteError } from '../../lib/ports/documents.ts';
import { lockDataDir, type DataDirLock } from './lock.ts';
import { SCHEMA_VERSION, migrate, schemaVersion } from './schema.ts';

export type SynchronousLevel = 'FULL' | 'NORMAL';

export interface SqliteOptions {
  dataDir: string;
  /** `FULL`: a commit survives a power cut; `NORMAL`: a process crash only (the last commits may be lost to a power cut). */
  synchronous: SynchronousLevel;
  /** Told once of each group of writes that could not be committed. */
  onWriteFailure?: (error: Error) => void;
}

const DATABASE_FILE = 'identity.sqlite';
const BUSY_TIMEOUT_MS = 5000;
/** After a commit that took d ms, the next one starts at least SPACING × d ms later. */
const SPACING = 2;
/** Prepared statements kept, by their text; beyond it the oldest is dropped (statements of dynamic queries vary). */
const STATEMENTS_KEPT = 500;

interface Batch {
  readonly done: Promise<void>;
  resolve(): void;
  reject(error: Error): void;
  readonly undos: Array<() => void>;
  /** The first error met: nothing more is run in this batch, and it rolls back. */
  failure: unknown;
}

/** SQLite's primary result code of an error `node:sqlite` threw (extended codes carry it in their low byte). */
export function sqliteCode(error: unknown): number | undefined {
  const code = (error as { errcode?: unknown } | null)?.errcode;
  return typeof code === 'number' ? code & 0xff : undefined;
}

const SQLITE_READONLY = 8;
const SQLITE_CORRUPT = 11;
const SQLITE_CANTOPEN = 14;
const SQLITE_NOTADB = 26;

export class SqliteDatabase {
  readonly path: string;
  readonly db: DatabaseSync;
  readonly #lock: DataDirLock;
  readonly #onWriteFailure: (error: Error) => void;
  readonly #statements = new Map<string, StatementSync>();
  #batch: Batch | undefined;
  #closed = false;
  /** When the last commit ended (performance.now()) and how long it took. */
  #lastCommitEnd = 0;
  #lastCommitMs = 0;

  constructor(path: string, db: DatabaseSync, lock: DataDirLock, onWriteFailure: (error: Error) => void) {
    this.path = path;
    this.db = db;
    this.#lock = lock;
    this.#onWriteFailure = onWriteFailure;
  }

  /** A prepared statement for `sql`, kept for the next use. */
  statement(sql: string): StatementSync {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      if (this.#statements.size >= STATEMENTS_KEPT) this.#statements.delete(this.#statements.keys().next().value!);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  /**
   * Runs `run` now, inside this turn's transaction, and resolves once that transaction committed. `undo` puts back
   * what the caller changed in memory for this write, should the commit fail.
   */
  write(run: () => void, undo?: () => void): Promise<void> {
    if (this.#closed) return Promise.reject(new DurableWriteError('the database is closed'));
    const batch = this.#batch ?? this.#begin();
    if (undo) batch.undos.push(undo);
    if (batch.failure === undefined) {
      try {
        run();
      } catch (error) {
        batch.failure = error;
      }
    }
    return batch.done;
  }

  /**
   * Writes once (the time the file was opened), so that a file SQLite could open only for reading is refused at start
   * rather than at the first request. Called once the stores have read the file: a corrupt file is refused before
   * anything is written to it.
   */
  async checkWritable(): Promise<void> {
    try {
      await this.write(() => {
        this.statement("INSERT INTO meta (key, value) VALUES ('opened_at', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value")
          .run(new Date().toISOString());
      });
    } catch (error) {
      throw refusal(this.path, (error as Error).cause ?? error);
    }
  }

  /** Resolves once every write made so far settled (committed or not). */
  async settled(): Promise<void> {
    await this.#batch?.done.catch(() => undefined);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    await this.settled();
    this.#closed = true;
    this.#statements.clear();
    this.db.close();
    this.#lock.release();
  }

  #begin(): Batch {
    const { promise, resolve, reject } = Promise.withResolvers<void>();
    // Every writer awaits the batch; a batch nobody awaits (a sweep) must not be an unhandled rejection.
    promise.catch(() => undefined);
    const batch: Batch = { done: promise, resolve, reject, undos: [], failure: undefined };
    this.#batch = batch;
    try {
      this.db.exec('BEGIN IMMEDIATE');
    } catch (error) {
      batch.failure = error;
    }
    // Right after a commit, the next one waits twice as long as that one took: a commit blocks the event loop for its
    // fsync, so under load commits take at most a third of it, each for all the writes that came meanwhile; when
    // writes are few, the wait is over before the next one comes.
    const wait = this.#lastCommitEnd + SPACING * this.#lastCommitMs - performance.now();
    if (wait < 1) setImmediate(() => this.#commit(batch));
    else setTimeout(() => this.#commit(batch), wait);
    return batch;
  }

  #commit(batch: Batch): void {
    this.#batch = undefined;
    if (batch.failure === undefined) {
      const started = performance.now();
      try {
        this.db.exec('COMMIT');
        this.#lastCommitEnd = performance.now();
        this.#lastCommitMs = this.#lastCommitEnd - started;
        batch.resolve();
        return;
      } catch (error) {
        batch.failure = error;
      }
    }
    try {
      if (this.db.isTransaction) this.db.exec('ROLLBACK');
    } catch {
      // SQLite may have rolled back on its own (a full disk, an I/O error).
    }
    for (let i = batch.undos.length - 1; i >= 0; i -= 1) {
      try {
        batch.undos[i]!();
      } catch {
        // One undo failing must not keep the others from running.
      }
    }
    const cause = batch.failure;
    const error = new DurableWriteError(`could not write to ${this.path}: ${(cause as Error)?.message ?? String(cause)}`, { cause });
    this.#onWriteFailure(error);
    batch.reject(error);
  }
}

/** The one line a start-up refuses a database file with, naming it and what is wrong. */
function refusal(path: string, error: unknown): StoreUnavailableError {
  if (error instanceof StoreUnavailableError) return error;
  const code = sqliteCode(error);
  const message = (error as Error)?.message ?? String(error);
  const why = code === SQLITE_NOTADB ? 'it is not a SQLite database'
    : code === SQLITE_CORRUPT ? 'the database is corrupt (restore it from a backup)'
      : code === SQLITE_READONLY ? 'it is not writable'
        : code === SQLITE_CANTOPEN ? 'it cannot be opened (check that DATA_DIR exists and is writable)'
          : message;
  return new StoreUnavailableError(`cannot use the database ${path}: ${why}`);
}

/**
 * Opens (creating when absent: directory 0700, file 0600) and locks the data directory's database. Anything that
 * keeps it from being used safely (another process holds it, not a database, corrupt, not writable, a newer
 * schema) is refused with a StoreUnavailableError naming the path; nothing is written to a file that is refused.
 */
export function openSqliteDatabase(options: SqliteOptions): SqliteDatabase {
  const dataDir = resolve(options.dataDir);
  const path = join(dataDir, DATABASE_FILE);
  try {
    if (!existsSync(dataDir)) mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new StoreUnavailableError(`cannot create DATA_DIR ${dataDir}: ${(error as Error).message}`);
  }
  let lock: DataDirLock;
  try {
    lock = lockDataDir(dataDir);
  } catch (error) {
    throw refusal(join(dataDir, 'lock.sqlite'), error);
  }
  let db: DatabaseSync | undefined;
  try {
    // Created empty first with the right mode: SQLite gives its WAL and shared-memory files the same.
    if (!existsSync(path)) {
      closeSync(openSync(path, 'wx', 0o600));
      chmodSync(path, 0o600);
    }
    db = new DatabaseSync(path, { timeout: BUSY_TIMEOUT_MS });
    const version = schemaVersion(db);
    if (version === null) throw new StoreUnavailableError(`cannot use the database ${path}: it was not created by this service`);
    if (version > SCHEMA_VERSION) {
      throw new StoreUnavailableError(
        `cannot use the database ${path}: it has schema version ${version}, newer than this version of the service knows (${SCHEMA_VERSION}); run the newer version`,
      );
    }
    db.exec('PRAGMA journal_mode = WAL');
    db.exec(`PRAGMA synchronous = ${options.synchronous}`);
    // The WAL is copied back into the database every 10,000 pages (about 40 MB) rather than SQLite's 1,000: a
    // checkpoint runs inside a commit, blocking the event loop, so fewer and larger ones cost less.
    db.exec('PRAGMA wal_autocheckpoint = 10000');
    db.exec('BEGIN IMMEDIATE');
    try {
      if (version < SCHEMA_VERSION) migrate(db, version);
      db.exec('COMMIT');
    } catch (error) {
      db.exec('ROLLBACK');
      throw error;
    }
  } catch (error) {
    db?.close();
    lock.release();
    throw refusal(path, error);
  }
  return new SqliteDatabase(path, db, lock, options.onWriteFailure ?? (() => {}));
}
