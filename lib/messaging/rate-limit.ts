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
        'request.message_rate_limited',
        'too many messages sent to this recipient; try again later',
        Math.ceil(remainingMs / 1000),
      );
    },
  };
}

/** Who asks for a message, each with a budget of its own: the client's address, the sign-in, the signed-in user. */
export interface MessageSenders {
  ip?: string;
  /** The OIDC interaction (uid) of a sign-in, registration or password reset. */
  interaction?: string;
  /** The user of an Account API request. */
  user?: string;
}

export interface SenderBudgetPolicy {
  /** Messages per window for each kind of sender; 0 = no budget of that kind. */
  perIp: number;
  perInteraction: number;
  perUser: number;
  windowSeconds: number;
}

const SENDER_REFUSALS: Record<keyof MessageSenders, string> = {
  ip: 'too many messages asked for from this address; try again later',
  interaction: 'too many messages asked for in this sign-in; try again later',
  user: 'too many messages asked for by this account; try again later',
};

/**
 * Budgets of the senders of messages, beside the recipient's: whoever asks cannot spread messages over many
 * recipients (one sign-in texting forty numbers). Counted like the recipient's, in the key-value store with a
 * window starting with the first message; past a budget, 429 `request.message_rate_limited` with the seconds
 * left, and no event (Message.RateLimited is about a recipient).
 */
export function createSenderBudgets(deps: { kv: KeyValueStore; policy: SenderBudgetPolicy }) {
  const { kv, policy } = deps;
  const windowMs = policy.windowSeconds * 1000;
  const limits: Record<keyof MessageSenders, number> = {
    ip: policy.perIp,
    interaction: policy.perInteraction,
    user: policy.perUser,
  };

  return {
    /** Takes one message from each named sender's budget, or throws `request.message_rate_limited` for the first one spent. */
    async consume(senders: MessageSenders = {}): Promise<void> {
      for (const kind of ['interaction', 'user', 'ip'] as const) {
        const subject = senders[kind];
        if (subject === undefined || limits[kind] === 0) continue;
        const counter = `message:sender:${kind}:${subject}`;
        if ((await kv.incr(counter, windowMs)) <= limits[kind]) continue;
        const ttl = await kv.ttl(counter);
        throw errors.rateLimited(
          'request.message_rate_limited',
          SENDER_REFUSALS[kind],
          Math.ceil((ttl > 0 ? ttl : 1000) / 1000),
        );
      }
    },
  };
}
