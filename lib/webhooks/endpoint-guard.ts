import type { KeyValueStore } from '../ports/kv.ts';
import { setBounded } from '../bounded-map.ts';
import { sharedReads } from '../shared-reads.ts';
import { createOriginSlots } from './origin-slots.ts';

export interface EndpointLimits {
  /** Attempts in flight to one origin from this process; more wait briefly (fast origins) or are deferred. */
  concurrency: number;
  /** Consecutive failed attempts to one origin that open its circuit. */
  breakerFailures: number;
  /** How long an opened circuit stays open; doubled for each failed probe, up to 32 times. */
  breakerOpenMs: number;
  /** The request timeout: how long a probe may take, and the longest wait for a busy origin. */
  timeoutMs: number;
}

/** How an attempt went, as far as the endpoint's health is concerned. */
export type EndpointHealth = 'answering' | 'failing' | 'untried';

export interface EndpointPass {
  /** Frees the slot and updates the circuit; never throws. */
  done(health: EndpointHealth, latencyMs: number): Promise<void>;
}

export type Admission = { deferInMs: number } | { pass: EndpointPass };

/** Consecutive failures are forgotten after a day without any attempt. */
const FAILURE_MEMORY_MS = 24 * 3600 * 1000;
const MAX_OPEN_DOUBLINGS = 5;
/** A deferral shorter than this would only churn the queue. */
const MIN_DEFER_MS = 50;
/** An endpoint whose attempts take at most this share of the timeout counts as fast. */
const FAST_SHARE = 0.1;

/**
 * Keeps one slow or dead endpoint from taking every delivery slot. Per origin (scheme, host and port), at
 * most `concurrency` attempts run at once in this process (`createOriginSlots`); an attempt beyond that is
 * deferred for about as long as the origin's attempts take, unless the origin is fast enough for it to wait
 * its turn. A circuit breaker, shared by every process
 * through the key-value store and named by `namespace` (the queue), opens after `breakerFailures`
 * consecutive failures: while open, deliveries are deferred without a request; then one probe at a time
 * goes out until one gets an answer.
 */
export function createEndpointGuard(deps: {
  kv: KeyValueStore;
  limits: EndpointLimits;
  namespace: string;
  random?: () => number;
}) {
  const { kv, limits } = deps;
  const random = deps.random ?? Math.random;
  const slots = createOriginSlots({ concurrency: limits.concurrency, fastMs: limits.timeoutMs * FAST_SHARE });
  const key = (origin: string, part: 'failures' | 'open' | 'probe') =>
    `webhooks:breaker:${deps.namespace}:${origin}:${part}`;
  // Spreads the deferred deliveries of one endpoint so they do not all come back at the same moment.
  const jittered = (ms: number) => Math.round(Math.max(MIN_DEFER_MS, ms) * (1 + random() / 2));
  const openMs = (failures: number) =>
    limits.breakerOpenMs * 2 ** Math.min(failures - limits.breakerFailures, MAX_OPEN_DOUBLINGS);

  const circuitReads = sharedReads<{ openForMs: number; failures: number }>();
  /** The circuit as the key-value store has it (one read for attempts that ask together); when the store fails, closed. */
  const circuit = (origin: string) => circuitReads.read(origin, () => readCircuit(origin));
  /** Delivering is the safe side: a circuit that cannot be read counts as closed. */
  async function readCircuit(origin: string): Promise<{ openForMs: number; failures: number }> {
    try {
      const [open, failures] = await Promise.all([kv.ttl(key(origin, 'open')), kv.get(key(origin, 'failures'))]);
      return { openForMs: Math.max(0, open), failures: Number(failures ?? 0) || 0 };
    } catch {
      return { openForMs: 0, failures: 0 };
    }
  }

  return {
    /** A slot for an attempt to `url`, or how long to defer it. */
    async admit(url: string): Promise<Admission> {
      const origin = originOf(url);
      const slot = await slots.acquire(origin);
      if ('busyForMs' in slot)
        return { deferInMs: jittered(Math.min(slot.busyForMs ?? limits.timeoutMs / 4, limits.timeoutMs)) };
      const { openForMs, failures } = await circuit(origin);
      if (openForMs > 0) {
        slot.release();
        return { deferInMs: jittered(openForMs) };
      }
      const probing = failures >= limits.breakerFailures;
      if (probing && !(await kv.setIfAbsent(key(origin, 'probe'), '1', limits.timeoutMs * 2).catch(() => true))) {
        slot.release();
        return { deferInMs: jittered(limits.timeoutMs) };
      }
      return {
        pass: {
          async done(health, latencyMs) {
            // The slot is held until the circuit is updated, so that no attempt starts on the old state.
            try {
              if (health === 'failing') {
                const count = await kv.incr(key(origin, 'failures'), FAILURE_MEMORY_MS);
                if (count >= limits.breakerFailures) await kv.set(key(origin, 'open'), String(count), openMs(count));
              } else if (health === 'answering' && failures > 0) {
                await kv.del(key(origin, 'failures'));
              }
              if (probing) await kv.del(key(origin, 'probe'));
            } catch {
              // The breaker is advisory: a key-value outage must not fail the delivery's own bookkeeping.
            } finally {
              slot.release(health === 'untried' ? undefined : latencyMs);
            }
          },
        },
      };
    },
  };
}

export type EndpointGuard = ReturnType<typeof createEndpointGuard>;

/** Origins of the hooks' URLs, parsed once per URL: every attempt asks. */
const origins = new Map<string, string>();
const MAX_KEPT_ORIGINS = 1000;

function originOf(url: string): string {
  const known = origins.get(url);
  if (known !== undefined) return known;
  let origin: string;
  try {
    origin = new URL(url).origin;
  } catch {
    origin = url;
  }
  setBounded(origins, url, origin, MAX_KEPT_ORIGINS);
  return origin;
}
