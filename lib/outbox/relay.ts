import type { Logger } from 'pino';
import type { DocumentStore } from '../ports/documents.ts';
import type { OutboxEntry, OutboxRepository } from './repository.ts';

export interface RelayOptions {
  /** Longest wait between two looks at the outbox when nothing woke the relay (entries a crashed process left). */
  pollMs?: number;
  /** Entries claimed at a time. */
  batch?: number;
  /** How long a claim lasts: an entry whose relay died is taken over after this. */
  leaseMs?: number;
  /** Delay before an entry that could not be forwarded (the queue is down) is tried again. */
  retryMs?: number;
}

export interface OutboxRelay {
  /** Starts the loop (idempotent). */
  start(): void;
  /** Asks for a look at the outbox now: called after every commit that added entries. */
  wake(): void;
  /** Stops the loop and waits for the entries in hand. */
  stop(): Promise<void>;
}

const DEFAULTS = { pollMs: 1000, batch: 100, leaseMs: 15_000, retryMs: 1000 } satisfies Required<RelayOptions>;
/** Batches forwarded in one look before the loop yields to a new one (it goes on at once while entries remain). */
const ROUNDS_PER_LOOK = 20;

/**
 * Moves outbox entries to the delivery queue. Delivery ids derive from the entry and the hook, and a delivery whose
 * record says it finished is not queued again, so an entry forwarded twice (a crash between the enqueue and the
 * delete) can send again only deliveries that were still waiting (docs/webhooks.md, "Durability").
 */
export function createOutboxRelay(deps: {
  store: DocumentStore;
  outbox: OutboxRepository;
  forward: (entry: OutboxEntry) => Promise<void>;
  /** Runs before a claimed batch is forwarded (its entries concurrently), with the batch in claim order. */
  admit?: (entries: readonly OutboxEntry[]) => Promise<void>;
  logger: Logger;
  options?: RelayOptions;
}): OutboxRelay {
  const options = { ...DEFAULTS, ...deps.options };
  let stopped = false;
  let woken = false;
  let wakeUp: (() => void) | undefined;
  let loop: Promise<void> | undefined;

  async function forwardOne(entry: OutboxEntry): Promise<boolean> {
    try {
      await deps.forward(entry);
    } catch (error) {
      deps.logger.warn({ err: error, entry: entry.id }, 'outbox entry not forwarded yet: retrying');
      await deps.outbox.release(entry, new Date(Date.now() + options.retryMs)).catch(() => undefined);
      return false;
    }
    return true;
  }

  /** One look: forwards due entries until none is left, a batch fails entirely, or the round limit. */
  async function look(): Promise<void> {
    for (let round = 0; round < ROUNDS_PER_LOOK && !stopped; round += 1) {
      const entries = await deps.outbox.claim(options.batch, options.leaseMs);
      if (entries.length === 0) return;
      await deps.admit?.(entries);
      const forwarded = await Promise.all(entries.map(forwardOne));
      const done = entries.filter((_, index) => forwarded[index]);
      if (done.length === 0) return;
      await deps.outbox.complete(done);
      // A short batch took every entry that was due: a commit since then has woken the relay, which looks again at once.
      if (entries.length < options.batch) return;
    }
    woken = true;
  }

  /**
   * Waits for a wake or the poll interval. A wake is acted on in the event loop's next check phase, not at once: the
   * commits that complete in the same turn (concurrent requests) add their entries first, and one look forwards them all.
   */
  function pause(): Promise<void> {
    if (stopped) return Promise.resolve();
    if (woken) return new Promise((resolve) => setImmediate(resolve));
    return new Promise((resolve) => {
      const timer = setTimeout(done, options.pollMs);
      function done() {
        clearTimeout(timer);
        wakeUp = undefined;
        setImmediate(resolve);
      }
      wakeUp = done;
    });
  }

  async function run(): Promise<void> {
    while (!stopped) {
      woken = false;
      await deps.store.outsideTransaction(look).catch((error: unknown) => {
        deps.logger.warn({ err: error }, 'outbox relay could not read the outbox');
      });
      await pause();
    }
  }

  return {
    start() {
      // Outside any request's transaction: the loop outlives every request that wakes it.
      loop ??= deps.store.outsideTransaction(run);
    },
    wake() {
      woken = true;
      wakeUp?.();
    },
    async stop() {
      stopped = true;
      wakeUp?.();
      await loop;
    },
  };
}
