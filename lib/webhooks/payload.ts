import type { IdentityEvent } from '../events/bus.ts';
import type { DeliveryJob } from '../ports/queue.ts';
import { newId } from '../ids.ts';

/**
 * Field names that may hold a credential. Producers are not supposed to put any in an event; this is the
 * last line of defence before a payload leaves the service. `code` is matched exactly so that fields like
 * `postalCode` survive.
 */
const SECRET_FIELD =
  /^(password\w*|\w*secret|\w*token|\w*privatekey|signingkeys?|retiredsigningkeys|code|verificationcode)$/i;

/**
 * The event as JSON text without secret-looking fields: what every subscriber of the event receives (with its own
 * `hookId`, see `deliveryBody`). One text per event, shared by its deliveries, their records and their queue jobs.
 */
export function eventText(event: IdentityEvent): string {
  return JSON.stringify(event, (key, value) => (key !== '' && SECRET_FIELD.test(key) ? undefined : value));
}

/** A payload as an event's text: its JSON without the receiving hook's id. */
export function payloadText(payload: Record<string, unknown>): string {
  const { hookId: _hookId, ...body } = payload;
  return JSON.stringify(body);
}

/** A job as any version stored it: earlier ones kept the payload as an object, with the hook's id. */
export function storedJob(
  job: Omit<DeliveryJob, 'payload'> & { payload: string | Record<string, unknown> },
): DeliveryJob {
  return typeof job.payload === 'string' ? (job as DeliveryJob) : { ...job, payload: payloadText(job.payload) };
}

/** The body one delivery sends: the event's text with the receiving hook's id added last, as Logto sends it. */
export function deliveryBody(text: string, hookId: string): string {
  const field = `"hookId":${JSON.stringify(hookId)}}`;
  return text === '{}' ? `{${field}` : `${text.slice(0, -1)},${field}`;
}

/** The payload of one delivery as an object: what the API shows of it. */
export function deliveryPayload(text: string, hookId: string): Record<string, unknown> {
  return { ...(JSON.parse(text) as Record<string, unknown>), hookId };
}

/**
 * The delivery id, also the `webhook-id` header and the queue's job id (BullMQ rejects ids with ':' or
 * made only of digits, hence the prefix).
 */
export function newDeliveryId(): string {
  return `dlv_${newId()}`;
}
