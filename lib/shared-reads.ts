/**
 * Overlapping reads of one key share a single read: a caller that asks while a read of its key is in flight gets
 * that read's answer, as if it had asked when that read was sent. For state that other processes change at any
 * moment (a circuit breaker, a failure streak), an answer that much older guarantees as much as a read of one's own,
 * and deliveries running side by side to one endpoint then cost one round trip instead of one each.
 */
export function sharedReads<T>(): (key: string, read: () => Promise<T>) => Promise<T> {
  const inFlight = new Map<string, Promise<T>>();
  return (key, read) => {
    const known = inFlight.get(key);
    if (known) return known;
    const promise = read();
    inFlight.set(key, promise);
    const forget = () => {
      if (inFlight.get(key) === promise) inFlight.delete(key);
    };
    promise.then(forget, forget);
    return promise;
  };
}
