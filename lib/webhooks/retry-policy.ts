import type { SendResult } from './sender.ts';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Delay before each retry, like Svix: about 18 hours from the first attempt to the last. */
export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = Object.freeze([
  5 * SECOND,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
]);

const JITTER = 0.2;

/** Parses `WEBHOOK_RETRY_DELAYS_MS`-style text: comma-separated non-negative integer milliseconds. */
export function parseRetryDelays(text: string): number[] {
  const parts = text.split(',').map((part) => part.trim());
  const invalid = parts.find((part) => !/^\d+$/.test(part) || !Number.isSafeInteger(Number(part)));
  if (text.trim() === '' || invalid !== undefined) {
    throw new Error(
      `Invalid retry delays ${JSON.stringify(text)}: expected comma-separated non-negative integers (milliseconds)`,
    );
  }
  return parts.map(Number);
}

export type Outcome = 'succeeded' | 'retry' | 'final' | 'gone';

/**
 * 3xx is retried rather than final: redirects are not followed (the signature covers one URL), but they are
 * usually transient or fixable on the consumer's side (a moved endpoint, an HTTPS upgrade, a maintenance
 * page), so giving up at once would drop events the consumer can still receive once it fixes its URL.
 */
export function classify(result: SendResult): Outcome {
  if (result.ok) return 'succeeded';
  // The destination will not change by itself: an operator must fix the URL or WEBHOOK_ALLOWED_NETWORKS.
  if (result.refused !== undefined) return 'final';
  const { status } = result;
  if (status === undefined) return 'retry'; // timeout or network error
  if (status === 410) return 'gone';
  if (status === 408 || status === 429 || status >= 500 || (status >= 300 && status < 400)) return 'retry';
  return 'final';
}

export interface NextDelayInput {
  /** The 1-based attempt that just failed. */
  attempt: number;
  delays: readonly number[];
  retryAfterMs?: number;
  retryAfterCapMs: number;
  random?: () => number;
}

/** Delay before the next attempt, or undefined once all `delays.length` retries are used up. */
export function nextDelayMs({
  attempt,
  delays,
  retryAfterMs,
  retryAfterCapMs,
  random = Math.random,
}: NextDelayInput): number | undefined {
  const base = delays[attempt - 1];
  if (base === undefined) return undefined;
  // Jitter spreads retries of one outage's failures so they do not hit the endpoint in lockstep.
  const jittered = Math.round(base * (1 + (random() * 2 - 1) * JITTER));
  if (retryAfterMs === undefined) return jittered;
  return Math.max(jittered, Math.min(retryAfterMs, retryAfterCapMs));
}
