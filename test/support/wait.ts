/**
 * Bounded polling, for state that changes outside this process's clock (Redis expiries, a queue draining,
 * a request arriving). Deadlines use the monotonic `performance.now()`, so a fake `Date` cannot stall them.
 */
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Truthy<T> = Exclude<T, false | 0 | '' | null | undefined>;

export interface PollOptions {
  /** Fails after this long; 10 s unless given. */
  timeoutMs?: number;
  /** Between two checks; 20 ms unless given. */
  intervalMs?: number;
  /** What is awaited, for the failure message. */
  what?: string;
}

/** Polls until `check` returns a truthy value, and returns it; fails once `timeoutMs` has passed. */
export async function eventually<T>(
  check: () => T | Promise<T>,
  options: PollOptions | number = {},
): Promise<Truthy<T>> {
  const {
    timeoutMs = 10_000,
    intervalMs = 20,
    what = 'condition',
  } = typeof options === 'number' ? { timeoutMs: options } : options;
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as Truthy<T>;
    if (performance.now() > deadline) throw new Error(`${what} not met within ${timeoutMs} ms`);
    await pause(intervalMs);
  }
}
