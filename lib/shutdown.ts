import type { Settings } from './settings.ts';

/** How long closing a service instance waits for the requests in flight. */
export const DRAIN_MS = 10_000;
/** What closing the stores may take beyond the webhook attempts in flight. */
const STORES_CLOSE_MS = 5000;

/**
 * The longest stopping should take, after which the entry points exit by force: the requests in flight (DRAIN_MS),
 * then the webhook attempts in flight, each over within WEBHOOK_TIMEOUT_MS (attempts not started stay queued), then
 * the stores. Its own module, so the worker learns it without loading the web side.
 */
export function shutdownBoundMs(settings: Pick<Settings, 'WEBHOOK_TIMEOUT_MS'>): number {
  return DRAIN_MS + settings.WEBHOOK_TIMEOUT_MS + STORES_CLOSE_MS;
}
