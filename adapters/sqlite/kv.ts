/**
 * The durable key-value store: the in-memory one (adapters/memory/kv.ts), every change written through to the `kv`
 * table and acknowledged once committed (group commit). The live keys are read back into memory at start. Expired
 * rows are deleted by a timer, in bounded steps.
 */
import type { KeyValueStore } from '../../lib/ports/kv.ts';
import { createMemoryKeyValueStore, type KeyValueEntry } from '../memory/kv.ts';
import type { SqliteDatabase } from './database.ts';

const SWEEP_INTERVAL_MS = 30_000;
const SWEEP_STEP_ROWS = 1000;
const SWEEP_STEPS = 20;

function* liveEntries(database: SqliteDatabase): Iterable<[string, KeyValueEntry]> {
  const rows = database.db
    .prepare('SELECT key, value, expires_at FROM kv WHERE expires_at IS NULL OR expires_at > ?')
    .iterate(Date.now());
  for (const row of rows) {
    yield [
      String(row.key),
      { value: String(row.value), expiresAt: row.expires_at === null ? null : Number(row.expires_at) },
    ];
  }
}

function deleteExpired(database: SqliteDatabase): void {
  const sql = `DELETE FROM kv WHERE key IN (SELECT key FROM kv WHERE expires_at <= ? LIMIT ${SWEEP_STEP_ROWS})`;
  for (let step = 0; step < SWEEP_STEPS; step += 1) {
    let deleted = 0;
    void database
      .write(() => {
        deleted = Number(database.statement(sql).run(Date.now()).changes);
      })
      .catch(() => undefined);
    if (deleted < SWEEP_STEP_ROWS) return;
  }
}

export function createSqliteKeyValueStore(database: SqliteDatabase): KeyValueStore {
  const sweeper = setInterval(() => deleteExpired(database), SWEEP_INTERVAL_MS);
  sweeper.unref();
  return createMemoryKeyValueStore({
    kind: 'sqlite',
    entries: liveEntries(database),
    journal: {
      record(key, entry, undo) {
        return database.write(() => {
          if (entry) {
            database
              .statement(
                'INSERT INTO kv (key, value, expires_at) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at',
              )
              .run(key, entry.value, entry.expiresAt);
          } else {
            database.statement('DELETE FROM kv WHERE key = ?').run(key);
          }
        }, undo);
      },
    },
    async close() {
      clearInterval(sweeper);
      await database.settled();
    },
  });
}
