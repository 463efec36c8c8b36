import { errors } from '../errors.ts';
import type { EventBus } from '../events/bus.ts';
import type { ExceptionContext } from '../events/payloads.ts';
import type { KeyValueStore } from '../ports/kv.ts';
import type { Recipient } from './codes.ts';
import type { MessagePurpose } from './templates.ts';

/** Request context an exception event carries next to its own fields (see docs/webhooks.md). */
export type MessageEventContext = ExceptionContext;

export interface MessageRatePolicy {
  /** Messages one recipient may be sent per window. */
  count: number;
  windowSeconds: number;
}

/**
 * Per-recipient send limit, counted in the key-value store (Redis when shared, so every process counts
 * together). The window starts with the first message to a recipient. Past the limit nothing is sent, the
 * caller hears 429 with the seconds left, and Message.RateLimited is published once per recipient per window.
 */
export function createMessageRateLimit(deps: { kv: KeyValueStore; bus: EventBus; policy: MessageRatePolicy }) {
  const { kv, bus, policy } = deps;
  const windowMs = policy.windowSeconds * 1000;

  return {
    /** Takes one message from the recipient's budget, or throws `request.message_rate_limited`. */
    async consume(action: MessagePurpose, to: Recipient, context: MessageEventContext = {}): Promise<void> {
      const subject = `${to.type}:${to.value}`;
      const counter = `message:sent:${subject}`;
      if ((await kv.incr(counter, windowMs)) <= policy.count) return;
      const ttl = await kv.ttl(counter);
      // The window may have ended between the two calls; the next message starts a new one.
      const remainingMs = ttl > 0 ? ttl : 1000;
      if (await kv.setIfAbsent(`message:limited:${subject}`, '1', remainingMs)) {
        await bus.emit('Message.RateLimited', { action, recipient: to.value }, context);
      }
      throw errors.rateLimited(
        'request.message_rate_limited', 'too many messages sent to this recipient; try again later', Math.ceil(remainingMs / 1000),
      );
    },
  };
}
