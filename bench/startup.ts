import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openSqliteDatabase } from '../adapters/sqlite/database.ts';
import { createSqliteDocumentStore } from '../adapters/sqlite/documents.ts';
import { createUsersRepository } from '../lib/users/repository.ts';
import { createDeliveryLogs } from '../lib/webhooks/delivery-logs.ts';
import { peakRssMb, rssMb } from './load.ts';
import { startBenchService } from './service-process.ts';

export interface StartupBenchOptions {
  users?: number;
  logs?: number;
  /** Starts measured; the figures are their medians. */
  starts?: number;
}

const DAY_MS = 86_400_000;
/** Collections the service keeps on disk (app/stores.ts). */
const DISK_RESIDENT = ['webhook_logs', 'webhook_deliveries', 'impersonation_audit'];

/**
 * Writes `users` users and `logs` delivery attempt logs into a SQLite file as the service stores them (through the
 * repositories' collections, thousands per write), with the indexes the service creates.
 */
async function seed(dataDir: string, users: number, logs: number): Promise<void> {
  const database = openSqliteDatabase({ dataDir, synchronous: 'NORMAL' });
  const store = createSqliteDocumentStore(database, { diskResident: DISK_RESIDENT });
  try {
    const repository = createUsersRepository(store);
    await repository.prepare();
    const userDocs = store.collection('users');
    const now = Date.now();
    for (let first = 0; first < users; first += 5000) {
      await userDocs.insertMany(
        Array.from({ length: Math.min(5000, users - first) }, (_, i) => {
          const n = first + i;
          return {
            _id: `u${n}`,
            id: `u${n}`,
            username: `user_${n}`,
            primaryEmail: `user${n}@example.com`,
            name: `User ${n}`,
            avatar: null,
            customData: {},
            identities: {},
            profile: {},
            applicationId: null,
            isSuspended: false,
            hasPassword: false,
            lastSignInAt: null,
            createdAt: now - n,
            updatedAt: now - n,
          };
        }),
      );
    }
    const logStore = createDeliveryLogs(store, { retentionMs: 14 * DAY_MS });
    await logStore.prepare();
    const logDocs = store.collection('webhook_logs');
    for (let first = 0; first < logs; first += 10_000) {
      await logDocs.insertMany(
        Array.from({ length: Math.min(10_000, logs - first) }, (_, i) => {
          const n = first + i;
          const at = now - n * 10;
          return {
            _id: `log${n}`,
            id: `log${n}`,
            hookId: `hook${n % 20}`,
            deliveryId: `dlv_${Math.floor(n / 2)}`,
            event: 'User.Created',
            attempt: 1 + (n % 2),
            succeeded: n % 2 === 1,
            responseStatus: n % 2 === 1 ? 200 : 503,
            responseBody: 'ok',
            error: null,
            latencyMs: 12,
            nextRetryAt: null,
            createdAt: at,
            expiresAt: new Date(Math.ceil((at + 14 * DAY_MS) / 1000) * 1000),
          };
        }),
      );
    }
  } finally {
    await store.close();
    await database.close();
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/**
 * Start-up of the SQLite store with a large file: seeded with 100,000 users and 1,000,000 delivery logs, then the
 * service started on it (as `npm start` runs it), timed from the spawn to the line it prints once it serves, its RSS
 * read then. The logs stay on disk (a disk-resident collection); the users are read into memory.
 */
export async function runStartupBench(options: StartupBenchOptions = {}) {
  const { users = 100_000, logs = 1_000_000, starts = 3 } = options;
  const dataDir = mkdtempSync(join(tmpdir(), 'identity-bench-startup-'));
  try {
    const seeding = performance.now();
    await seed(dataDir, users, logs);
    const seedSeconds = (performance.now() - seeding) / 1000;
    const fileMb = Math.round(statSync(join(dataDir, 'identity.sqlite')).size / 1e6);
    const times: number[] = [];
    const rss: number[] = [];
    const peaks: number[] = [];
    for (let i = 0; i < starts; i += 1) {
      const spawned = performance.now();
      const service = await startBenchService({ DATA_DIR: dataDir, STORAGE: 'sqlite' });
      times.push(performance.now() - spawned);
      rss.push(rssMb(service.pid));
      peaks.push(peakRssMb(service.pid));
      await service.stop();
    }
    return {
      users,
      logs,
      fileMb,
      seedSeconds: Number(seedSeconds.toFixed(1)),
      starts,
      readySeconds: Number((median(times) / 1000).toFixed(2)),
      rssMbAtReady: median(rss),
      peakRssMbAtReady: median(peaks),
    };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export type StartupBenchResult = Awaited<ReturnType<typeof runStartupBench>>;

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(await runStartupBench());
