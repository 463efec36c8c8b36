import type { Logger } from 'pino';
import { ConfigurationError, type Environment } from '../lib/config.ts';
import { createLogger } from '../lib/logger.ts';
import { runUntilSignalled, settingsOrExit } from './lifecycle.ts';
import { resolveSettings } from '../lib/settings.ts';
import { shutdownBoundMs } from '../lib/shutdown.ts';
import { openStores, type InjectedStores } from '../lib/stores.ts';
import { createWebhooks } from '../lib/webhooks/index.ts';
import { createOutboxRepository } from '../lib/outbox/repository.ts';
import { createOutboxRelay } from '../lib/outbox/relay.ts';

export interface WebhookWorkerOptions {
  env?: Record<string, string | undefined>;
  config?: Partial<Environment>;
  logger?: Logger;
  /** Pre-built stores; the worker does not close injected ones. */
  stores?: InjectedStores;
}

export interface RunningWebhookWorker {
  queueName: string;
  concurrency: number;
  /** Stops consuming (attempts in flight finish), then closes what the worker opened. */
  close(): Promise<void>;
}

/**
 * Webhook delivery without the web side: the same settings, stores and webhook code the web process uses
 * (`createWebhooks`), consuming the shared queue. It reads hooks and writes delivery logs in the document
 * store and takes jobs from Redis, so it must share both with the web processes: MongoDB and Redis. It also
 * relays the outbox to the queue, beside the web processes' relays (claims keep them from sharing an entry),
 * so entries a crashed web process left move on even while no web process runs.
 */
export async function startWebhookWorker(options: WebhookWorkerOptions = {}): Promise<RunningWebhookWorker> {
  const settings = resolveSettings(options.env ?? process.env, options.config);
  if (settings.embedded.documents && !options.stores?.documents) {
    throw new ConfigurationError(
      'the webhook worker reads hooks from the document store the web process writes: set MONGODB_URI '
      + '(embedded documents live inside one process; without MongoDB, keep WEBHOOK_WORKER_IN_WEB=true)',
    );
  }
  if (!settings.REDIS_URL && !options.stores?.queue) {
    throw new ConfigurationError('the webhook worker takes its jobs from the queue the web process fills: set REDIS_URL');
  }
  if (settings.webhookQueue.private && !options.stores?.queue) {
    throw new ConfigurationError('set WEBHOOK_QUEUE_NAME to the queue the web process fills');
  }
  const logger = options.logger ?? createLogger(settings.LOG_LEVEL);
  // A worker that cannot reach its queue would do nothing: it does not start.
  const stores = await openStores(settings, logger, options.stores, { requireReachable: true });
  const webhooks = createWebhooks({ settings, logger, store: stores.documents, kv: stores.kv, queue: stores.queue });
  const outbox = createOutboxRepository(stores.documents);
  const relay = createOutboxRelay({ store: stores.documents, outbox, forward: webhooks.fanOut, logger });
  try {
    await webhooks.prepare();
    await outbox.prepare();
    await webhooks.startWorker();
    relay.start();
  } catch (error) {
    await relay.stop();
    await stores.close();
    throw error;
  }
  return {
    queueName: settings.webhookQueue.name,
    concurrency: settings.WEBHOOK_CONCURRENCY,
    async close() {
      await relay.stop();
      await stores.close();
      webhooks.close();
    },
  };
}

/** `npm run worker`: one ready line, graceful stop on SIGTERM/SIGINT. */
async function main(): Promise<void> {
  const settings = settingsOrExit(process.env);
  const logger = createLogger(settings.LOG_LEVEL);
  const worker = await runUntilSignalled(logger, () => startWebhookWorker({ logger }), (running) => running.close(), shutdownBoundMs(settings));
  logger.info(
    { queue: worker.queueName, concurrency: worker.concurrency },
    `ready: webhook worker consuming ${worker.queueName}`,
  );
}

if (import.meta.main) await main();
