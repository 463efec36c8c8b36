/**
 * The service's Redis connection, tuned to fail fast. A request must never wait for Redis to come back:
 * while it is down every command fails at once (answered 503 by the caller), and the connection keeps
 * trying in the background, so the first command after Redis is back succeeds.
 */
import { Redis, type RedisOptions } from 'ioredis';

/** A connection attempt to an unreachable host gives up after this long (ioredis waits 10 s). */
export const CONNECT_TIMEOUT_MS = 1000;
/** Longest pause between two reconnection attempts: how late, at worst, the service notices Redis is back. */
const MAX_RECONNECT_DELAY_MS = 1000;

const FAIL_FAST_OPTIONS = {
  // Without the offline queue a command issued while disconnected fails at once instead of waiting for a
  // reconnection that may never come; with no retries a command cut off mid-flight fails with its connection.
  enableOfflineQueue: false,
  maxRetriesPerRequest: 0,
  connectTimeout: CONNECT_TIMEOUT_MS,
  retryStrategy: (attempt: number) => Math.min(50 * 2 ** attempt, MAX_RECONNECT_DELAY_MS),
} satisfies RedisOptions;

interface ConnectionEvents {
  /** Once per outage: the first error after the connection was up (or since it was created). */
  onDown?: (error: Error) => void;
  /** When the connection is usable again after an outage. */
  onUp?: () => void;
}

/**
 * `options` adds to the fail-fast ones, e.g. `enableAutoPipelining` for a connection whose commands are all short
 * and independent (the key-value store's): the commands issued in one turn of the event loop then go out in one
 * write instead of one write each. Not for BullMQ's connections, whose scripts and blocking commands expect their own.
 */
export function createRedisConnection(url: string, events: ConnectionEvents = {}, options: RedisOptions = {}): Redis {
  const redis = new Redis(url, { ...options, ...FAIL_FAST_OPTIONS, lazyConnect: false });
  // One line per outage and one per recovery, not one per reconnection attempt.
  let down = false;
  redis.on('error', (error: Error) => {
    if (down) return;
    down = true;
    events.onDown?.(error);
  });
  redis.on('ready', () => {
    if (!down) return;
    down = false;
    events.onUp?.();
  });
  return redis;
}

/**
 * Resolves true once the connection is ready, false at its first failure or after `ms`: commands issued
 * before the first connection completes would fail (no offline queue), and a Redis that is down must not
 * hold up the start.
 */
export function untilReady(redis: Redis, ms: number): Promise<boolean> {
  if (redis.status === 'ready') return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (ready: boolean) => {
      clearTimeout(timer);
      redis.off('ready', onReady);
      redis.off('error', onError);
      resolve(ready);
    };
    const onReady = () => done(true);
    const onError = () => done(false);
    const timer = setTimeout(() => done(false), ms);
    timer.unref();
    redis.on('ready', onReady);
    redis.on('error', onError);
  });
}

/**
 * Resolves once the connection is ready (`ready: true`), or after `ms` without it, with the reason of the latest
 * failed attempt: unlike `untilReady`, failed attempts in between do not end the wait (the connection retries them).
 */
export function readyWithin(redis: Redis, ms: number): Promise<{ ready: boolean; lastError?: Error }> {
  if (redis.status === 'ready') return Promise.resolve({ ready: true });
  let lastError: Error | undefined;
  return new Promise((resolve) => {
    const done = (ready: boolean) => {
      clearTimeout(timer);
      redis.off('ready', onReady);
      redis.off('error', onError);
      resolve(lastError && !ready ? { ready, lastError } : { ready });
    };
    const onReady = () => done(true);
    const onError = (error: Error) => {
      lastError = error;
    };
    const timer = setTimeout(() => done(false), ms);
    redis.on('ready', onReady);
    redis.on('error', onError);
  });
}
