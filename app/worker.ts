import Koa from 'koa';
import type { Logger } from 'pino';
import { ConfigurationError, type Environment } from '../lib/config.ts';
import { errors } from '../lib/errors.ts';
import { accessLog } from '../lib/http/access-log.ts';
import { jsonErrorMiddleware } from '../lib/http/errors.ts';
import { healthMiddleware } from '../lib/http/health.ts';
import { createRequestScope } from '../lib/http/request-id.ts';
import { createLogger } from '../lib/logger.ts';
import { metricsEndpoint } from '../lib/metrics/endpoint.ts';
import { createMetrics } from '../lib/metrics/registry.ts';
import { resolveSettings } from '../lib/settings.ts';
import { openStores, type InjectedStores } from './stores.ts';
import { createWebhookRuntime, type WebhookRuntime } from './webhook-runtime.ts';

export interface WebhookWorkerOptions {
  env?: Record<string, string | undefined>;
  config?: Partial<Environment>;
  logger?: Logger;
  /** Pre-built stores; the worker does not close injected ones. */
  stores?: InjectedStores;
}

export interface RunningWebhookWorker {
  /** `/healthz`, `/readyz` (every store answers) and `/metrics` (its delivery attempts among them), for `npm run worker` to serve. */
  app: Koa;
  queueName: string;
  concurrency: number;
  /** Stops consuming (attempts in flight finish), then closes what the worker opened. */
  close(): Promise<void>;
}

/**
 * Webhook delivery without the web side: the same settings, stores and webhook runtime the web process uses,
 * consuming the shared queue. It reads hooks and writes delivery logs in the document store and takes jobs from
 * Redis, so it must share both with the web processes: MongoDB and Redis. It also relays the outbox to the queue,
 * beside the web processes' relays (claims keep them from sharing an entry), so entries a crashed web process left
 * move on even while no web process runs.
 */
export async function startWebhookWorker(options: WebhookWorkerOptions = {}): Promise<RunningWebhookWorker> {
  const settings = resolveSettings(options.env ?? process.env, options.config);
  if (settings.embedded.documents && !options.stores?.documents) {
    throw new ConfigurationError(
      'the webhook worker reads hooks from the document store the web process writes: set MONGODB_URI ' +
        '(embedded documents live inside one process; without MongoDB, keep WEBHOOK_WORKER_IN_WEB=true)',
    );
  }
  if (!settings.REDIS_URL && !options.stores?.queue) {
    throw new ConfigurationError(
      'the webhook worker takes its jobs from the queue the web process fills: set REDIS_URL',
    );
  }
  if (settings.webhookQueue.private && !options.stores?.queue) {
    throw new ConfigurationError('set WEBHOOK_QUEUE_NAME to the queue the web process fills');
  }
  const requestScope = createRequestScope(options.logger ?? createLogger(settings.LOG_LEVEL));
  const { logger } = requestScope;
  // A worker that cannot reach its queue would do nothing: it does not start.
  const stores = await openStores(settings, logger, options.stores, { requireReachable: true });
  const metrics = createMetrics({ queueDepth: () => stores.queue.pendingCount() });
  if (!settings.METRICS_TOKEN) {
    logger.warn(
      'GET /metrics is open to anyone who reaches this worker: set METRICS_TOKEN, or keep it off the public network',
    );
  }
  let runtime: WebhookRuntime | undefined;
  try {
    runtime = await createWebhookRuntime({ settings, logger, stores, metrics });
    await runtime.deliver();
    runtime.relay();
  } catch (error) {
    await runtime?.stop();
    await stores.close();
    throw error;
  }

  const app = new Koa({ proxy: settings.TRUST_PROXY });
  app.on('error', (error: Error) => logger.debug({ err: error }, 'request error'));
  app.use(accessLog(requestScope, metrics));
  app.use(jsonErrorMiddleware(logger));
  app.use(metricsEndpoint(metrics, settings.METRICS_TOKEN));
  app.use(
    healthMiddleware([
      { name: 'documents', check: () => stores.documents.ping() },
      { name: 'keyValue', check: () => stores.kv.ping() },
    ]),
  );
  app.use(() => {
    throw errors.routeNotFound();
  });

  const running = runtime;
  return {
    app,
    queueName: settings.webhookQueue.name,
    concurrency: settings.WEBHOOK_CONCURRENCY,
    async close() {
      await running.stop();
      await stores.close();
      running.close();
    },
  };
}
