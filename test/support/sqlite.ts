import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteDatabase, type SqliteDatabase, type SynchronousLevel } from '../../adapters/sqlite/database.ts';

/** A fresh data directory under the system's temporary directory; the caller removes it. */
export function tempDataDir(prefix = 'identity-data-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** A SQLite database in a fresh data directory, and a way to close it and remove the directory. */
export function openTempDatabase(synchronous: SynchronousLevel = 'FULL'): {
  database: SqliteDatabase;
  dataDir: string;
  remove(): Promise<void>;
} {
  const dataDir = tempDataDir();
  const database = openSqliteDatabase({ dataDir, synchronous });
  return {
    database,
    dataDir,
    async remove() {
      await database.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
