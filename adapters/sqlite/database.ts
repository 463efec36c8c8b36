/**
 * The SQLite file everything embedded is kept in (`DATA_DIR/identity.sqlite`), opened once per process with
 * `node:sqlite`: WAL journal, a busy timeout, the schema brought up to date.
 *
 * Group commit: every write (a document commit, a key-value change, a queue change) runs at once inside the open
 * SQLite transaction, which the first write opens (`BEGIN IMMEDIATE`) and which commits when that turn of the event
 * loop ends (`setImmediate`), or, right after another commit, once twice that commit's time has passed: the writes
 * made meanwhile share one commit. With `SQLITE_SYNCHRONOUS=FULL` a commit is then made durable by an `fdatasync` of
 * the WAL file on libuv's thread pool, off the event loop; a transaction opened while that sync runs commits once it
 * has returned and twice the last commit's time to durability has passed since that commit started, so the writes
 * made meanwhile share the next sync. Each write's promise settles once its commit is
 * durable (with `NORMAL`, once it is in the WAL). SQLite itself runs at `synchronous = NORMAL` in both modes, which
 * in WAL mode syncs only at checkpoints (the WAL before one, the database after it) and at a WAL restart's header,
 * so the sync of every commit's frames that `FULL` adds is this one. When a commit fails (disk full, read-only file,
 * I/O error), the transaction is rolled back, the in-memory changes of those writes are undone newest first, and
 * every one of them rejects with DurableWriteError; the next turn tries afresh, so the service recovers once the disk
 * does. When the sync fails, the writes it covered reject with DurableWriteError as well (committed, but not known to
 * be on the disk).
 */
import { chmodSync, closeSync, existsSync, fdatasync, mkdirSync, openSync } from 'node:fs';
import { promisify } from 'node:util';
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
  /** Flushes the WAL file (its descriptor) to the disk; `fdatasync` unless a test stands in for the disk. */
  syncFile?: (fd: number) => Promise<void>;
}

const syncFileData = promisify(fdatasync);

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

/** Committed batches waiting for the WAL sync that makes them durable. */
type Unsynced = Array<Pick<Batch, 'resolve' | 'reject'>>;

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
  /** Set when commits are synced by this class (`FULL`); undefined with `NORMAL`. */
  readonly #syncFile: ((fd: number) => Promise<void>) | undefined;
  #walFd: number | undefined;
  /** The sync running (it covers the batches committed before it started) and the batches committed since. */
  #syncing: Promise<void> | undefined;
  #unsynced: Unsynced = [];
  /** A batch whose commit waits for the running sync to return. */
  #commitAfterSync: Batch | undefined;
  readonly #statements = new Map<string, StatementSync>();
  #batch: Batch | undefined;
  #closed = false;
  /** When the last commit started and ended (performance.now()) and how long it took. */
  #lastCommitStart = 0;
  #lastCommitEnd = 0;
  #lastCommitMs = 0;
  /** How long the last synced commit took to be durable: its commit and the sync that covered it. */
  #lastDurableMs = 0;

  constructor(
    path: string,
    db: DatabaseSync,
    lock: DataDirLock,
    onWriteFailure: (error: Error) => void,
    syncFile: ((fd: number) => Promise<void>) | undefined,
  ) {
    this.path = path;
    this.db = db;
    this.#lock = lock;
    this.#onWriteFailure = onWriteFailure;
    this.#syncFile = syncFile;
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
        this.statement(
          "INSERT INTO meta (key, value) VALUES ('opened_at', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        ).run(new Date().toISOString());
      });
    } catch (error) {
      throw refusal(this.path, (error as Error).cause ?? error);
    }
  }

  /** Resolves once every write made so far settled (committed or not). */
  async settled(): Promise<void> {
    await this.#batch?.done.catch(() => undefined);
    while (this.#syncing) await this.#syncing;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    await this.settled();
    this.#closed = true;
    this.#statements.clear();
    if (this.#walFd !== undefined) closeSync(this.#walFd);
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
    // While a sync runs, the batch commits when it returns, or later (#commitWhenDue).
    if (this.#syncing) this.#commitAfterSync = batch;
    else this.#commitWhenDue(batch);
    return batch;
  }

  /**
   * Commits `batch` once it is due. Right after a commit, the next one waits twice as long as that one took: a commit
   * blocks the event loop while it writes the WAL (and, at a checkpoint, the database and their syncs), so under load
   * commits take at most a third of it, each for all the writes that came meanwhile. With `FULL`, it also starts no
   * sooner than twice the last commit's time to durability (its commit and its sync) after that commit started: a
   * sync costs the process CPU time (the kernel's) whatever it covers, so under load syncs run about half the time,
   * each covering twice the writes, while the disk's own speed sets the pace. When writes are few, the wait is over
   * before the next one comes, and a write commits in the next turn of the event loop.
   */
  #commitWhenDue(batch: Batch): void {
    const due = Math.max(
      this.#lastCommitEnd + SPACING * this.#lastCommitMs,
      this.#lastCommitStart + SPACING * this.#lastDurableMs,
    );
    const wait = due - performance.now();
    if (wait < 1) setImmediate(() => this.#commit(batch));
    else setTimeout(() => this.#commit(batch), wait);
  }

  #commit(batch: Batch): void {
    this.#batch = undefined;
    if (batch.failure === undefined) {
      const started = performance.now();
      try {
        this.db.exec('COMMIT');
        this.#lastCommitStart = started;
        this.#lastCommitEnd = performance.now();
        this.#lastCommitMs = this.#lastCommitEnd - started;
        if (!this.#syncFile) {
          batch.resolve();
          return;
        }
        this.#unsynced.push(batch);
        this.#syncing ??= this.#sync();
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
    this.#fail([batch], batch.failure);
  }

  #fail(batches: Unsynced, cause: unknown): void {
    const error = new DurableWriteError(
      `could not write to ${this.path}: ${(cause as Error)?.message ?? String(cause)}`,
      { cause },
    );
    this.#onWriteFailure(error);
    for (const batch of batches) batch.reject(error);
  }

  /**
   * Syncs the WAL for the batches committed so far, then for those committed meanwhile, until none is left; a batch
   * that waited for the sync to commit commits when it returns (its own sync follows).
   */
  async #sync(): Promise<void> {
    while (this.#unsynced.length > 0) {
      const batches = this.#unsynced;
      this.#unsynced = [];
      try {
        this.#walFd ??= openSync(`${this.path}-wal`, 'r');
        const started = performance.now();
        await this.#syncFile!(this.#walFd);
        this.#lastDurableMs = this.#lastCommitMs + (performance.now() - started);
        for (const batch of batches) batch.resolve();
      } catch (error) {
        this.#fail(batches, error);
      }
      const waiting = this.#commitAfterSync;
      this.#commitAfterSync = undefined;
      if (waiting) this.#commitWhenDue(waiting);
    }
    this.#syncing = undefined;
  }
}

/** The one line a start-up refuses a database file with, naming it and what is wrong. */
function refusal(path: string, error: unknown): StoreUnavailableError {
  if (error instanceof StoreUnavailableError) return error;
  const code = sqliteCode(error);
  const message = (error as Error)?.message ?? String(error);
  const why =
    code === SQLITE_NOTADB
      ? 'it is not a SQLite database'
      : code === SQLITE_CORRUPT
        ? 'the database is corrupt (restore it from a backup)'
        : code === SQLITE_READONLY
          ? 'it is not writable'
          : code === SQLITE_CANTOPEN
            ? 'it cannot be opened (check that DATA_DIR exists and is writable)'
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
    if (version === null)
      throw new StoreUnavailableError(`cannot use the database ${path}: it was not created by this service`);
    if (version > SCHEMA_VERSION) {
      throw new StoreUnavailableError(
        `cannot use the database ${path}: it has schema version ${version}, newer than this version of the service knows (${SCHEMA_VERSION}); run the newer version`,
      );
    }
    db.exec('PRAGMA journal_mode = WAL');
    // FULL's per-commit sync is made by SqliteDatabase off the event loop (see the module comment).
    db.exec('PRAGMA synchronous = NORMAL');
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
  const syncFile = options.synchronous === 'FULL' ? (options.syncFile ?? syncFileData) : undefined;
  return new SqliteDatabase(path, db, lock, options.onWriteFailure ?? (() => {}), syncFile);
}
