/**
 * One process at a time holds a data directory. The lock is an exclusive lock SQLite takes on a small file of its own
 * (`lock.sqlite`, in EXCLUSIVE locking mode): the operating system drops it when the process ends, however it ends,
 * so a SIGKILL never leaves a stale lock behind. The main database is not locked that way, so that a backup can read
 * it while the service runs. Whoever holds the lock says who it is in `lock.owner`, which a refused process quotes.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { StoreUnavailableError } from '../../lib/store-unavailable.ts';

const SQLITE_BUSY = 5;

export interface DataDirLock {
  release(): void;
}

export function lockDataDir(dataDir: string): DataDirLock {
  const lock = new DatabaseSync(join(dataDir, 'lock.sqlite'), { timeout: 0 });
  const ownerPath = join(dataDir, 'lock.owner');
  try {
    lock.exec(
      'PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE; CREATE TABLE IF NOT EXISTS holder (since TEXT); COMMIT',
    );
  } catch (error) {
    lock.close();
    if (((error as { errcode?: number }).errcode ?? 0) % 256 !== SQLITE_BUSY) throw error;
    let owner = 'another process';
    try {
      owner = readFileSync(ownerPath, 'utf8').trim() || owner;
    } catch {
      // The holder has not said who it is yet.
    }
    throw new StoreUnavailableError(
      `DATA_DIR ${dataDir} is in use by ${owner}: only one process may hold it (stop it, or give this one another DATA_DIR)`,
    );
  }
  writeFileSync(ownerPath, `process ${process.pid} on ${hostname()} (since ${new Date().toISOString()})\n`, {
    mode: 0o600,
  });
  return {
    release() {
      lock.close();
    },
  };
}
