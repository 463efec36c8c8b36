/**
 * A fake clock for expiries kept in this process. Only `Date` is faked: the embedded key-value and document
 * stores, oidc-provider's epoch time, lockout windows, subject-token lifetimes and signing-key grace all read
 * `Date.now()`, so moving the clock expires them at once. Timers, sockets, worker threads and mocha keep real
 * time, and so does Redis, whose expiries follow the server's clock.
 */
import { install } from '@sinonjs/fake-timers';

export interface FakeClock {
  /** Moves the clock forward; nothing else runs meanwhile. */
  advance(ms: number): void;
  /** Puts the real `Date` back. */
  uninstall(): void;
}

/** Freezes `Date` at the current time until `advance` moves it. */
export function installFakeClock(): FakeClock {
  const clock = install({ now: Date.now(), toFake: ['Date'] });
  return {
    advance(ms) {
      if (!(ms >= 0)) throw new RangeError(`a clock only moves forward, not by ${ms} ms`);
      clock.tick(ms);
    },
    uninstall: () => clock.uninstall(),
  };
}

/** Runs `use` with a fake clock, and puts the real `Date` back however it ends. */
export async function withFakeClock<T>(use: (clock: FakeClock) => Promise<T>): Promise<T> {
  const clock = installFakeClock();
  try {
    return await use(clock);
  } finally {
    clock.uninstall();
  }
}
