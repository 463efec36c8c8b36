/**
 * Overlapping reads of one key share a single read: a caller that asks while a read of its key is in flight gets
 * that read's answer, as if it had asked when that read was sent. For state that other processes change at any
 * moment (a circuit breaker, a failure streak, the hooks' version), an answer that much older guarantees as much as a
 * read of one's own, and callers running side by side then cost one round trip instead of one each. A process that
 * changes the state itself calls `forget` once its write is done, so that its next read sees its own change.
 */
export function sharedReads<T>() {
  const inFlight = new Map<string, Promise<T>>();
  return {
    read(key: string, read: () => Promise<T>): Promise<T> {
      const known = inFlight.get(key);
      if (known) return known;
      const promise = read();
      inFlight.set(key, promise);
      const forget = () => {
        if (inFlight.get(key) === promise) inFlight.delete(key);
      };
      promise.then(forget, forget);
      return promise;
    },
    /** Lets the next read of `key` go out, whatever is in flight. */
    forget(key: string): void {
      inFlight.delete(key);
    },
  };
}
