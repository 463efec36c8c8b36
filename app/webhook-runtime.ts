import type { Logger } from 'pino';
import { createEventLog, type EventLog } from '../lib/events/event-log.ts';
import type { Metrics } from '../lib/metrics/registry.ts';
import { createOutboxRelay } from '../lib/outbox/relay.ts';
import { openOutbox, type OutboxRepository } from '../lib/outbox/index.ts';
import type { Settings } from '../lib/settings.ts';
import { createWebhooks, type Webhooks } from '../lib/webhooks/index.ts';
import type { Stores } from './stores.ts';

/**
 * The webhook side of a process, the same in the web process and in `npm run worker`: hook management, the outbox
 * relay that hands committed events to the delivery queue, and the consumer of that queue, which counts its
 * attempts in the process's metrics.
 */
export interface WebhookRuntime {
  webhooks: Webhooks;
  /** Where events are written inside the transaction of the change they announce. */
  outbox: OutboxRepository;
  /** Where they are numbered (sequence, entity versions) and kept for the events API. */
  events: EventLog;
  /** Asks the relay to look at the outbox now (after a commit that added entries). */
  wake(): void;
  /** Starts relaying the outbox to the queue (idempotent). */
  relay(): void;
  /** Starts consuming the delivery queue; it stops when the queue closes (with the stores). */
  deliver(): Promise<void>;
  /** Stops the replays and the relay, waiting for the steps and entries in hand: before the stores close. */
  stop(): Promise<void>;
  /** Drops the pooled connections to consumers: once the queue stopped consuming. */
  close(): void;
}

/** Builds the runtime and creates the indexes its collections rely on; nothing runs until `relay` and `deliver`. */
export async function createWebhookRuntime(deps: {
  settings: Settings;
  logger: Logger;
  stores: Pick<Stores, 'documents' | 'kv' | 'queue'>;
  metrics: Metrics;
}): Promise<WebhookRuntime> {
  const { settings, logger, stores, metrics } = deps;
  const events = createEventLog(stores.documents, { retentionMs: settings.EVENT_RETENTION_DAYS * 24 * 3600 * 1000 });
  const webhooks = createWebhooks({
    settings,
    logger,
    store: stores.documents,
    kv: stores.kv,
    queue: stores.queue,
    log: events,
    onAttempt: ({ outcome, latencyMs }) => {
      metrics.webhookAttempts.inc({ outcome });
      metrics.webhookAttemptSeconds.observe({ outcome }, latencyMs / 1000);
    },
  });
  const outbox = openOutbox(stores.documents);
  const relay = createOutboxRelay({
    store: stores.documents,
    outbox,
    forward: webhooks.fanOut,
    admit: webhooks.admitOrdered,
    logger,
  });
  await webhooks.prepare();
  await outbox.prepare();
  await events.prepare();
  return {
    webhooks,
    outbox,
    events,
    wake: relay.wake,
    relay: relay.start,
    deliver: () => webhooks.startWorker(),
    async stop() {
      await webhooks.replays.stop();
      await relay.stop();
    },
    close: webhooks.close,
  };
}
