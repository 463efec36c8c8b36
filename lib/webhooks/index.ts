import type { Logger } from 'pino';
import type { DocumentStore } from '../ports/documents.ts';
import type { KeyValueStore } from '../ports/kv.ts';
import type { DeliveryQueue } from '../ports/queue.ts';
import type { Settings } from '../settings.ts';
import type { EventName } from '../events/catalogue.ts';
import type { EventLog } from '../events/event-log.ts';
import { createDeliveriesRepository } from './deliveries.ts';
import { createDeliveryLogs } from './delivery-logs.ts';
import { createDestinationPolicy, type Resolver } from './destinations.ts';
import { createEndpointGuard } from './endpoint-guard.ts';
import { createFailureStreaks } from './failure-streak.ts';
import { createEntityOrder } from './entity-order.ts';
import { createFanOut, createOrderAdmission, type OrderHolds } from './fan-out.ts';
import { createHookCache } from './hook-cache.ts';
import { createHooksRepository, type HookConfig } from './hooks.ts';
import { createHookManagement } from './management.ts';
import { createDeliveryProcessor, type DeliveryPolicy, type ProcessorDeps } from './processor.ts';
import { createReplays } from './replays.ts';
import { resendDelivery } from './resend.ts';
import { DEFAULT_RETRY_DELAYS_MS } from './retry-policy.ts';
import { createWebhookAgents } from './sender.ts';
import { sendTestPayloads } from './test-send.ts';
import { VERSION } from '../version.ts';

const DAY_MS = 24 * 3600 * 1000;
const USER_AGENT = `identity-service-webhooks/${VERSION}`;

export interface WebhooksDeps {
  settings: Settings;
  logger: Logger;
  store: DocumentStore;
  kv: KeyValueStore;
  queue: DeliveryQueue;
  /** The numbered events replays send again. */
  log: EventLog;
  /** Host name resolution for deliveries; the system resolver unless a test injects one. */
  resolve?: Resolver;
  /** Told of every delivery attempt made by this instance's worker (metrics). */
  onAttempt?: ProcessorDeps['onAttempt'];
}

/**
 * Webhooks of one service instance, built the same way by the web process and by `npm run worker`: hook
 * management for the routes, the fan-out listener for the event bus, and the delivery worker.
 */
export function createWebhooks(deps: WebhooksDeps) {
  const { settings, store, queue } = deps;
  const retentionMs = settings.WEBHOOK_LOG_RETENTION_DAYS * DAY_MS;
  const hooks = createHooksRepository(store);
  const cache = createHookCache({ hooks, kv: deps.kv, store });
  const deliveries = createDeliveriesRepository(store, { retentionMs });
  const logs = createDeliveryLogs(store, { retentionMs });
  const destinations = createDestinationPolicy({
    allowedNetworks: settings.WEBHOOK_ALLOWED_NETWORKS ?? [],
    ...(deps.resolve ? { resolve: deps.resolve } : {}),
  });
  const order = createEntityOrder(store);
  const management = createHookManagement({
    hooks,
    cache,
    deliveries,
    logs,
    order,
    destinations,
    signingKeyGraceMs: settings.WEBHOOK_SIGNING_KEY_GRACE_SECONDS * 1000,
  });
  const holds: OrderHolds = new WeakMap();
  const replays = createReplays({
    deliveries,
    queue,
    store,
    log: deps.log,
    management,
    logger: deps.logger,
    retentionMs: settings.EVENT_RETENTION_DAYS * DAY_MS,
  });
  const agents = createWebhookAgents(settings.WEBHOOK_CONCURRENCY);
  const policy: DeliveryPolicy = {
    agents,
    destinations,
    retryDelaysMs: settings.WEBHOOK_RETRY_DELAYS_MS ?? DEFAULT_RETRY_DELAYS_MS,
    retryAfterCapMs: settings.WEBHOOK_RETRY_AFTER_CAP_MS,
    timeoutMs: settings.WEBHOOK_TIMEOUT_MS,
    userAgent: USER_AGENT,
  };

  return {
    management,
    deliveries,
    logs,
    replays,
    fanOut: createFanOut({ deliveries, queue, cache, order, holds }),
    /** Before the relay forwards a batch: notes the deliveries of hooks with `ordering: "entity"`, in sequence order. */
    admitOrdered: createOrderAdmission({ cache, order, holds }),
    resend: (hookId: string, deliveryId: string) =>
      resendDelivery({ deliveries, queue, management }, hookId, deliveryId),
    async sendTest(hookId: string, request: { events: EventName[]; config: HookConfig }): Promise<void> {
      await sendTestPayloads(await management.mustFind(hookId), request, policy);
    },
    async prepare(): Promise<void> {
      await hooks.prepare();
      await deliveries.prepare();
      await logs.prepare();
      await replays.prepare();
    },
    /** Starts consuming the delivery queue; it stops when the queue closes. */
    async startWorker(): Promise<void> {
      const guard = createEndpointGuard({
        kv: deps.kv,
        // Processes sharing a queue share each endpoint's circuit; other deployments on the same Redis do not.
        namespace: settings.webhookQueue.name,
        limits: {
          concurrency: settings.webhookEndpointConcurrency,
          breakerFailures: settings.WEBHOOK_BREAKER_FAILURES,
          breakerOpenMs: settings.WEBHOOK_BREAKER_OPEN_MS,
          timeoutMs: settings.WEBHOOK_TIMEOUT_MS,
        },
      });
      const streaks = createFailureStreaks({ kv: deps.kv, disableAfterMs: settings.WEBHOOK_AUTO_DISABLE_AFTER_MS });
      const processor = createDeliveryProcessor({
        cache,
        deliveries,
        logs,
        policy,
        guard,
        streaks,
        order,
        disableHook: management.disable,
        logger: deps.logger,
        onAttempt: deps.onAttempt,
      });
      await queue.consume(processor, { concurrency: settings.WEBHOOK_CONCURRENCY });
    },
    /** Drops the pooled connections to consumers; call once the queue stopped consuming. */
    close(): void {
      agents.destroy();
    },
  };
}

export type Webhooks = ReturnType<typeof createWebhooks>;
