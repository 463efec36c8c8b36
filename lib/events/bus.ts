import type { EventName } from './catalogue.ts';

/**
 * What happened, as published inside the service. Webhook fan-out adds `hookId` per subscriber; the rest
 * is the payload consumers receive (`event`, `createdAt`, the context fields and `data`).
 */
export interface IdentityEvent {
  event: EventName;
  /** ISO timestamp. */
  createdAt: string;
  [field: string]: unknown;
}

export type EventListener = (events: IdentityEvent[]) => Promise<void>;

/**
 * In-process publish/subscribe. `publish` awaits every listener, so a listener that makes an event durable
 * (webhook fan-out) has done so before the triggering request responds.
 */
export class EventBus {
  readonly #listeners: EventListener[] = [];

  subscribe(listener: EventListener): () => void {
    this.#listeners.push(listener);
    return () => {
      const index = this.#listeners.indexOf(listener);
      if (index >= 0) this.#listeners.splice(index, 1);
    };
  }

  async publish(events: IdentityEvent[]): Promise<void> {
    if (events.length === 0) return;
    for (const listener of this.#listeners) await listener(events);
  }
}
