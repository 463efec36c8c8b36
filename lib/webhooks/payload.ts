import type { IdentityEvent } from '../events/bus.ts';
import { newId } from '../ids.ts';

/**
 * Field names that may hold a credential. Producers are not supposed to put any in an event; this is the
 * last line of defence before a payload leaves the service. `code` is matched exactly so that fields like
 * `postalCode` survive.
 */
const SECRET_FIELD =
  /^(password\w*|\w*secret|\w*token|\w*privatekey|signingkeys?|retiredsigningkeys|code|verificationcode)$/i;

/** The event as plain JSON without secret-looking fields: what every subscriber of the event receives. */
export function eventBody(event: IdentityEvent): Record<string, unknown> {
  return JSON.parse(JSON.stringify(event, (key, value) => (key !== '' && SECRET_FIELD.test(key) ? undefined : value)));
}

/** The payload of one delivery: the event plus the receiving hook's id, as Logto sends it. */
export function hookPayload(body: Record<string, unknown>, hookId: string): Record<string, unknown> {
  return { ...body, hookId };
}

/**
 * The delivery id, also the `webhook-id` header and the queue's job id (BullMQ rejects ids with ':' or
 * made only of digits, hence the prefix).
 */
export function newDeliveryId(): string {
  return `dlv_${newId()}`;
}
