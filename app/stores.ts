import { resolve } from 'node:path';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { DocumentStore } from '../lib/ports/documents.ts';
import type { KeyValueStore } from '../lib/ports/kv.ts';
import type { DeliveryQueue } from '../lib/ports/queue.ts';
import type { Settings } from '../lib/settings.ts';
import { within } from '../lib/deadline.ts';
import { isDependencyFailure } from '../lib/http/dependency-errors.ts';
import { addressOf, reasonOf, StoreUnavailableError } from '../lib/store-unavailable.ts';
import { createMemoryDocumentStore } from '../adapters/memory/documents.ts';
import { createMemoryKeyValueStore } from '../adapters/memory/kv.ts';
import { createMemoryDeliveryQueue } from '../adapters/memory/delivery-queue.ts';
import type { SqliteDatabase } from '../adapters/sqlite/database.ts';

export interface Stores {
  documents: DocumentStore;
  kv: KeyValueStore;
  queue: DeliveryQueue;
  /** The SQLite file, when a store opened here keeps its data in it (imports write queue rows there directly). */
  sqlite?: SqliteDatabase;
  /** Closes what this module opened (injected stores stay open: their owner closes them). */
  close(): Promise<void>;
}

export interface InjectedStores {
  documents?: DocumentStore;
  kv?: KeyValueStore;
  queue?: DeliveryQueue;
}

export interface OpenStoresOptions {
  /**
   * Refuse to open while Redis does not answer within REQUIRED_WAIT_MS (a StoreUnavailableError), rather than open
   * and let `/readyz` report it until it is back. MongoDB is always required: nothing can start without documents.
   */
  requireReachable?: boolean;
}

/** How long a start that requires its stores waits for Redis (a container started beside it may take a moment). */
const REQUIRED_WAIT_MS = 5000;

/**
 * The large, append-mostly collections the SQLite store keeps on disk rather than in memory (they grow with traffic,
 * not with the number of users): attempt logs, delivery records, the impersonation audit, the impersonations and the event log.
 */
export const DISK_RESIDENT_COLLECTIONS = [
  'webhook_logs',
  'webhook_deliveries',
  'impersonation_audit',
  'impersonations',
  'events',
];

/**
 * Delivery records kept in memory from their insert to their first attempt's outcome, which reads and updates them:
 * at most this many (a backlog beyond it is read from the file). They hold the payload text their queued jobs hold.
 */
const KEPT_INSERTED = { webhook_deliveries: 10_000 };

/**
 * Chooses the backends (part of the composition root): MongoDB when `MONGODB_URI` is set, Redis and
 * BullMQ when `REDIS_URL` is set, the embedded store (`STORAGE`: one SQLite file under `DATA_DIR`, or memory) for
 * whatever those leave local. Injected stores take precedence. The drivers are imported only for the backends
 * chosen: each weighs tens of megabytes of resident memory.
 */
export async function openStores(
  settings: Settings,
  logger: Logger,
  injected: InjectedStores = {},
  options: OpenStoresOptions = {},
): Promise<Stores> {
  const closers: Array<() => Promise<unknown>> = [];
  /** The queue stops first: its consumer lets the attempts in flight finish or time out while the stores are open. */
  let closeQueue: (() => Promise<unknown>) | undefined;
  /** The SQLite file, when some store is kept in it: it closes last, once every store over it has. */
  let database: SqliteDatabase | undefined;
  const closeOpened = async () => {
    if (closeQueue)
      await within(
        closeQueue().catch(() => undefined),
        settings.WEBHOOK_TIMEOUT_MS + CLOSE_TIMEOUT_MS,
        undefined,
      );
    for (const close of closers)
      await within(
        close().catch(() => undefined),
        CLOSE_TIMEOUT_MS,
        undefined,
      );
    await database?.close().catch(() => undefined);
  };
  const sqlite = async (): Promise<SqliteDatabase> => {
    if (database) return database;
    const { openSqliteDatabase } = await import('../adapters/sqlite/database.ts');
    try {
      database = openSqliteDatabase({
        dataDir: settings.DATA_DIR,
        synchronous: settings.SQLITE_SYNCHRONOUS,
        onWriteFailure: (error) =>
          logger.error({ store: 'sqlite', reason: reasonOf(error) }, 'sqlite write failed: the change was undone'),
      });
    } catch (error) {
      await closeOpened();
      throw error;
    }
    return database;
  };
  const local = settings.storage;
  let redis: Redis | undefined;
  let kvRedis: Redis | undefined;
  if (settings.REDIS_URL && (!injected.kv || !injected.queue)) {
    const { CONNECT_TIMEOUT_MS, createRedisConnection, readyWithin, untilReady } = await import(
      '../adapters/redis/connection.ts'
    );
    const address = addressOf(settings.REDIS_URL);
    // One line per outage, from one of the connections, without a stack: an outage is no bug. A start that requires
    // Redis says once whether it came up, so attempts that fail before that are not an outage yet.
    let starting = options.requireReachable === true;
    const outages = {
      onDown: (error: Error) =>
        starting ||
        logger.warn(
          { store: 'redis', address, reason: reasonOf(error) },
          'redis is unavailable: commands fail until it is back',
        ),
      onUp: () => starting || logger.info({ store: 'redis', address }, 'redis is available again'),
    };
    if (!injected.queue) redis = createRedisConnection(settings.REDIS_URL, outages);
    // The key-value store's commands (counters, one-time values, caches) are short and independent: on a connection
    // of their own they are pipelined, those of one turn of the event loop sent together. BullMQ keeps its own.
    if (!injected.kv)
      kvRedis = createRedisConnection(settings.REDIS_URL, redis ? {} : outages, { enableAutoPipelining: true });
    const connections = [redis, kvRedis].filter((connection) => connection !== undefined);
    for (const connection of connections) {
      // A connection that never became ready would wait forever on QUIT: drop it instead.
      closers.push(async () => {
        if (connection.status === 'ready') await connection.quit().catch(() => connection.disconnect());
        else connection.disconnect();
      });
    }
    if (options.requireReachable) {
      const waits = await Promise.all(connections.map((connection) => readyWithin(connection, REQUIRED_WAIT_MS)));
      const failed = waits.find((wait) => !wait.ready);
      if (failed) {
        await closeOpened();
        throw new StoreUnavailableError(
          `Redis at ${address} did not answer within ${REQUIRED_WAIT_MS / 1000} s` +
            `${failed.lastError ? ` (${reasonOf(failed.lastError)})` : ''}: start it, or correct REDIS_URL`,
        );
      }
      starting = false;
    } else {
      // Commands fail rather than wait while the connection is not up, so give the first one a moment to complete.
      await Promise.all(connections.map((connection) => untilReady(connection, 2 * CONNECT_TIMEOUT_MS)));
    }
  }
  let documents = injected.documents;
  /** Whether the documents are in the SQLite file (which the delivery queue's journal then shares). */
  let documentsInFile = false;
  if (!documents) {
    if (settings.MONGODB_URI) {
      documents = await openMongo(settings.MONGODB_URI, closeOpened);
    } else if (local === 'sqlite') {
      const file = await sqlite();
      const shared = redis ?? kvRedis;
      if (shared) await leaseOrRefuse(shared, settings.DATA_DIR, logger, closers, closeOpened);
      documents = await openLoaded(file, closeOpened, async () =>
        (await import('../adapters/sqlite/documents.ts')).createSqliteDocumentStore(file, {
          diskResident: DISK_RESIDENT_COLLECTIONS,
          keepInserted: KEPT_INSERTED,
        }),
      );
      documentsInFile = true;
    } else {
      documents = createMemoryDocumentStore();
    }
    const owned = documents;
    closers.push(() => owned.close());
  }
  let kv = injected.kv;
  if (!kv) {
    if (kvRedis) {
      kv = (await import('../adapters/redis/kv.ts')).createRedisKeyValueStore(kvRedis, { prefix: 'ids:' });
    } else if (local === 'sqlite') {
      const file = await sqlite();
      kv = await openLoaded(file, closeOpened, async () =>
        (await import('../adapters/sqlite/kv.ts')).createSqliteKeyValueStore(file),
      );
    } else {
      kv = createMemoryKeyValueStore();
    }
    const owned = kv;
    closers.push(() => owned.close());
  }
  let queue = injected.queue;
  if (!queue) {
    const onError = (error: unknown, deliveryId?: string) => {
      // Redis being down reaches the queue's connections on every reconnection attempt: the outage line says it once.
      if (isDependencyFailure(error))
        logger.debug({ reason: reasonOf(error), deliveryId }, 'webhook queue: redis unavailable');
      else logger.warn({ err: error, deliveryId }, 'webhook queue error');
    };
    if (redis) {
      queue = (await import('../adapters/bullmq/delivery-queue.ts')).createBullmqDeliveryQueue({
        connection: redis,
        queueName: settings.webhookQueue.name,
        removeOnClose: settings.webhookQueue.private,
        lockDurationMs: settings.WEBHOOK_LOCK_DURATION_MS,
        stalledIntervalMs: settings.WEBHOOK_STALLED_INTERVAL_MS,
        onError,
      });
    } else if (local === 'sqlite') {
      const file = await sqlite();
      queue = await openLoaded(file, closeOpened, async () =>
        (await import('../adapters/sqlite/delivery-queue.ts'))
          // With the documents in the same file, a job's rows commit with its delivery's record and outcome.
          .createSqliteDeliveryQueue(file, { onError, withDocuments: documentsInFile }),
      );
    } else {
      queue = createMemoryDeliveryQueue({ onError });
    }
    const owned = queue;
    // Before the connection it shares is quit.
    closeQueue = () => owned.close();
  }
  if (database) {
    try {
      await database.checkWritable();
    } catch (error) {
      await closeOpened();
      throw error;
    }
  }
  return {
    documents,
    kv,
    queue,
    ...(database && { sqlite: database }),
    // A store that does not answer must not keep the process from stopping.
    close: closeOpened,
  };
}

/** MongoDB, connected: one that cannot be reached within the URI's server selection timeout is a StoreUnavailableError. */
async function openMongo(uri: string, closeOpened: () => Promise<void>): Promise<DocumentStore> {
  const { createMongoDocumentStore } = await import('../adapters/mongodb/documents.ts');
  try {
    return await createMongoDocumentStore(uri);
  } catch (error) {
    await closeOpened();
    if (!isDependencyFailure(error)) throw error;
    throw new StoreUnavailableError(
      `MongoDB at ${addressOf(uri)} is unreachable (${reasonOf(error)}): start it, or correct MONGODB_URI`,
    );
  }
}

/**
 * A store over the SQLite file, read back from it: a file that cannot be read (corrupt) stops the start with one line
 * naming it, and nothing of it is overwritten.
 */
async function openLoaded<T>(
  database: SqliteDatabase,
  closeOpened: () => Promise<void>,
  open: () => Promise<T>,
): Promise<T> {
  try {
    return await open();
  } catch (error) {
    await closeOpened();
    throw new StoreUnavailableError(
      `cannot read the database ${database.path}: ${reasonOf(error)} (restore it from a backup)`,
    );
  }
}

/** Documents kept in this process's file, beside a Redis: no other such process may use that Redis (see lease.ts). */
async function leaseOrRefuse(
  redis: Redis,
  dataDir: string,
  logger: Logger,
  closers: Array<() => Promise<unknown>>,
  closeOpened: () => Promise<void>,
): Promise<void> {
  const { leaseLocalDocuments } = await import('../adapters/redis/lease.ts');
  try {
    const lease = await leaseLocalDocuments(redis, {
      key: 'ids:lease:local-documents',
      dataDir: resolve(dataDir),
      onLost: (holder) =>
        logger.error(
          { holder, dataDir },
          'another process with local documents took this Redis over: stop one of them',
        ),
    });
    // Before the connections are quit.
    closers.unshift(() => lease.release());
  } catch (error) {
    await closeOpened();
    if (error instanceof StoreUnavailableError) throw error;
    throw new StoreUnavailableError(
      `cannot check that no other process with local documents uses this Redis: ${reasonOf(error)}`,
    );
  }
}

const CLOSE_TIMEOUT_MS = 5000;
