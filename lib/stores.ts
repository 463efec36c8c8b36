import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { DocumentStore } from './ports/documents.ts';
import type { KeyValueStore } from './ports/kv.ts';
import type { DeliveryQueue } from './ports/queue.ts';
import type { Settings } from './settings.ts';
import { within } from './deadline.ts';
import { isDependencyFailure } from './http/dependency-errors.ts';
import { addressOf, reasonOf, StoreUnavailableError } from './store-unavailable.ts';
import { createMemoryDocumentStore } from '../adapters/memory/documents.ts';
import { createMemoryKeyValueStore } from '../adapters/memory/kv.ts';
import { createMemoryDeliveryQueue } from '../adapters/memory/delivery-queue.ts';

export interface Stores {
  documents: DocumentStore;
  kv: KeyValueStore;
  queue: DeliveryQueue;
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
 * Chooses the backends (part of the composition root): MongoDB when `MONGODB_URI` is set, Redis and
 * BullMQ when `REDIS_URL` is set, in-process otherwise. Injected stores take precedence. The drivers are
 * imported only for the backends chosen: each weighs tens of megabytes of resident memory.
 */
export async function openStores(
  settings: Settings, logger: Logger, injected: InjectedStores = {}, options: OpenStoresOptions = {},
): Promise<Stores> {
  const closers: Array<() => Promise<unknown>> = [];
  /** The queue stops first: its consumer lets the attempts in flight finish or time out while the stores are open. */
  let closeQueue: (() => Promise<unknown>) | undefined;
  const closeOpened = async () => {
    if (closeQueue) await within(closeQueue().catch(() => undefined), settings.WEBHOOK_TIMEOUT_MS + CLOSE_TIMEOUT_MS, undefined);
    for (const close of closers) await within(close().catch(() => undefined), CLOSE_TIMEOUT_MS, undefined);
  };
  let redis: Redis | undefined;
  let kvRedis: Redis | undefined;
  if (settings.REDIS_URL && (!injected.kv || !injected.queue)) {
    const { CONNECT_TIMEOUT_MS, createRedisConnection, readyWithin, untilReady } = await import('../adapters/redis/connection.ts');
    const address = addressOf(settings.REDIS_URL);
    // One line per outage, from one of the connections, without a stack: an outage is no bug. A start that requires
    // Redis says once whether it came up, so attempts that fail before that are not an outage yet.
    let starting = options.requireReachable === true;
    const outages = {
      onDown: (error: Error) => starting || logger.warn(
        { store: 'redis', address, reason: reasonOf(error) }, 'redis is unavailable: commands fail until it is back',
      ),
      onUp: () => starting || logger.info({ store: 'redis', address }, 'redis is available again'),
    };
    if (!injected.queue) redis = createRedisConnection(settings.REDIS_URL, outages);
    // The key-value store's commands (counters, one-time values, caches) are short and independent: on a connection
    // of their own they are pipelined, those of one turn of the event loop sent together. BullMQ keeps its own.
    if (!injected.kv) kvRedis = createRedisConnection(settings.REDIS_URL, redis ? {} : outages, { enableAutoPipelining: true });
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
          `Redis at ${address} did not answer within ${REQUIRED_WAIT_MS / 1000} s`
          + `${failed.lastError ? ` (${reasonOf(failed.lastError)})` : ''}: start it, or correct REDIS_URL`,
        );
      }
      starting = false;
    } else {
      // Commands fail rather than wait while the connection is not up, so give the first one a moment to complete.
      await Promise.all(connections.map((connection) => untilReady(connection, 2 * CONNECT_TIMEOUT_MS)));
    }
  }
  let documents = injected.documents;
  if (!documents) {
    documents = settings.MONGODB_URI ? await openMongo(settings.MONGODB_URI, closeOpened) : createMemoryDocumentStore();
    const owned = documents;
    closers.push(() => owned.close());
  }
  let kv = injected.kv;
  if (!kv) {
    kv = kvRedis
      ? (await import('../adapters/redis/kv.ts')).createRedisKeyValueStore(kvRedis, { prefix: 'ids:' })
      : createMemoryKeyValueStore();
    const owned = kv;
    closers.push(() => owned.close());
  }
  let queue = injected.queue;
  if (!queue) {
    const onError = (error: unknown, deliveryId?: string) => {
      // Redis being down reaches the queue's connections on every reconnection attempt: the outage line says it once.
      if (isDependencyFailure(error)) logger.debug({ reason: reasonOf(error), deliveryId }, 'webhook queue: redis unavailable');
      else logger.warn({ err: error, deliveryId }, 'webhook queue error');
    };
    queue = redis
      ? (await import('../adapters/bullmq/delivery-queue.ts')).createBullmqDeliveryQueue({
        connection: redis,
        queueName: settings.webhookQueue.name,
        removeOnClose: settings.webhookQueue.private,
        lockDurationMs: settings.WEBHOOK_LOCK_DURATION_MS,
        stalledIntervalMs: settings.WEBHOOK_STALLED_INTERVAL_MS,
        onError,
      })
      : createMemoryDeliveryQueue({ onError });
    const owned = queue;
    // Before the connection it shares is quit.
    closeQueue = () => owned.close();
  }
  return {
    documents, kv, queue,
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
    throw new StoreUnavailableError(`MongoDB at ${addressOf(uri)} is unreachable (${reasonOf(error)}): start it, or correct MONGODB_URI`);
  }
}

const CLOSE_TIMEOUT_MS = 5000;
