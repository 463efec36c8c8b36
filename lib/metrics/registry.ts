import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The service instance's metrics, in a registry of its own (never prom-client's global one), so two instances in
 * one process count apart. Label values come from closed sets (route patterns, grant types, error codes), never
 * from raw paths or user input, so the number of series stays bounded.
 */
export function createMetrics(sources: { queueDepth: () => Promise<number> }) {
  const registry = new Registry();
  const registers = [registry];
  let runtime = false;
  new Gauge({
    name: 'webhook_queue_depth',
    help: 'Webhook delivery jobs waiting, delayed or running in the queue (on Redis, one job may hold the deliveries of one outbox entry)',
    registers,
    async collect() {
      // With the queue's store down the scrape still answers; the gauge keeps its last value.
      const depth = await sources.queueDepth().catch(() => undefined);
      if (depth !== undefined) this.set(depth);
    },
  });
  return {
    registry,
    /**
     * The registry in the Prometheus text format, with prom-client's process and runtime metrics (CPU, resident and heap
     * memory, heap spaces, event-loop lag, GC durations, handles, file descriptors, Node version) joining it at the
     * first scrape: their event-loop monitor and GC observer cannot be stopped, so an instance nobody scrapes (a test,
     * a host without Prometheus) never starts them. They describe the process, which instances in it share.
     */
    async scrape(): Promise<string> {
      if (!runtime) {
        runtime = true;
        collectDefaultMetrics({ register: registry });
      }
      return registry.metrics();
    },
    httpRequests: new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests answered, by method, route pattern and status',
      labelNames: ['method', 'route', 'status'] as const,
      registers,
    }),
    httpDurations: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time to answer HTTP requests, by method, route pattern and status',
      labelNames: ['method', 'route', 'status'] as const,
      registers,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    }),
    tokensIssued: new Counter({
      name: 'oidc_tokens_issued_total',
      help: 'Successful token endpoint responses by grant type',
      labelNames: ['grant'] as const,
      registers,
    }),
    tokenExchangesRefused: new Counter({
      name: 'oidc_token_exchanges_refused_total',
      help: 'Token exchanges refused, by OAuth error code',
      labelNames: ['error'] as const,
      registers,
    }),
    rateLimitHits: new Counter({
      name: 'rate_limit_hits_total',
      help: 'Requests answered 429 by a rate limit, by limit',
      labelNames: ['limit'] as const,
      registers,
    }),
    webhookAttempts: new Counter({
      name: 'webhook_delivery_attempts_total',
      help: 'Webhook delivery attempts by outcome (succeeded, retry, final, gone)',
      labelNames: ['outcome'] as const,
      registers,
    }),
    webhookAttemptSeconds: new Histogram({
      name: 'webhook_delivery_attempt_duration_seconds',
      help: 'Time from sending a webhook to its answer (or failure), by outcome',
      labelNames: ['outcome'] as const,
      registers,
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    }),
    sandboxTimeouts: new Counter({
      name: 'jwt_customizer_timeouts_total',
      help: 'Stored customizer scripts stopped at their time limit, by pool (issuance, test)',
      labelNames: ['pool'] as const,
      registers,
    }),
    lockouts: new Counter({
      name: 'sign_in_lockouts_total',
      help: 'Identifiers locked after too many failed verifications',
      registers,
    }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
