/** One attempt's hold on one of its origin's slots. */
export interface OriginSlot {
  /** Gives the slot up (to the next waiter, if any); `latencyMs` of an attempt that reached the endpoint. */
  release(latencyMs?: number): void;
}

interface Waiter {
  grant(slot: OriginSlot | undefined): void;
}

interface Origin {
  /** When each attempt in flight started (performance.now()). */
  starts: number[];
  /** Smoothed duration of recent attempts; unknown until one finished. */
  typicalMs?: number;
  waiters: Waiter[];
}

/** Weight of the newest attempt in an origin's typical duration. */
const SMOOTHING = 0.2;
/** Idle origins whose typical duration is remembered; the least recently used go first. */
const MAX_IDLE_ORIGINS = 1000;

/**
 * At most `concurrency` attempts in flight per origin in this process. Beyond that, an attempt to an origin
 * that answers fast (its typical attempt and its oldest one in flight within `fastMs`) waits its turn for
 * up to `fastMs`, in order, since a slot frees in moments; to any other origin (slow, hanging, or not yet
 * known) it is turned away at once with how long the origin's attempts take, and goes back to the queue.
 */
export function createOriginSlots(options: { concurrency: number; fastMs: number }) {
  const origins = new Map<string, Origin>();

  function slotOf(name: string, origin: Origin): OriginSlot {
    const startedAt = performance.now();
    origin.starts.push(startedAt);
    let released = false;
    return {
      release(latencyMs) {
        if (released) return;
        released = true;
        origin.starts.splice(origin.starts.indexOf(startedAt), 1);
        if (latencyMs !== undefined) {
          origin.typicalMs =
            origin.typicalMs === undefined ? latencyMs : origin.typicalMs + SMOOTHING * (latencyMs - origin.typicalMs);
        }
        const next = origin.waiters.shift();
        if (next) next.grant(slotOf(name, origin));
        else if (origin.starts.length === 0) forget(name, origin);
      },
    };
  }

  /** Keeps the idle origin (for its typical duration) as the most recently used, within the bound. */
  function forget(name: string, origin: Origin): void {
    origins.delete(name);
    origins.set(name, origin);
    for (const [other, state] of origins) {
      if (origins.size <= MAX_IDLE_ORIGINS) break;
      if (state.starts.length === 0 && state.waiters.length === 0) origins.delete(other);
    }
  }

  function fast(origin: Origin): boolean {
    const oldest = origin.starts[0];
    return (
      origin.typicalMs !== undefined &&
      origin.typicalMs <= options.fastMs &&
      (oldest === undefined || performance.now() - oldest <= options.fastMs)
    );
  }

  function wait(origin: Origin): Promise<OriginSlot | undefined> {
    return new Promise((resolve) => {
      const waiter: Waiter = {
        grant(slot) {
          clearTimeout(timer);
          resolve(slot);
        },
      };
      const timer = setTimeout(() => {
        origin.waiters.splice(origin.waiters.indexOf(waiter), 1);
        resolve(undefined);
      }, options.fastMs);
      origin.waiters.push(waiter);
    });
  }

  return {
    /** A slot, or how long the origin's attempts typically take when there is none to be had. */
    async acquire(name: string): Promise<OriginSlot | { busyForMs: number | undefined }> {
      const origin = origins.get(name) ?? { starts: [], waiters: [] };
      origins.set(name, origin);
      if (origin.starts.length < options.concurrency && origin.waiters.length === 0) return slotOf(name, origin);
      const slot = fast(origin) ? await wait(origin) : undefined;
      return slot ?? { busyForMs: origin.typicalMs };
    },
  };
}
