import type { EventName } from '../../lib/events/catalogue.ts';
import type { RecordedEvent } from '../../lib/events/payloads.ts';

/**
 * An event with any fields, as a producer with a bug might publish it: the delivery tests need payloads no
 * producer can build (partial entities, secret-looking fields) to show what delivery does with whatever it gets.
 * Typed as recorded (an outbox entry holds such events), numbered only when `fields` say so.
 */
export function craftedEvent(event: EventName, fields: Record<string, unknown>, createdAt = new Date()): RecordedEvent {
  const crafted: Record<string, unknown> = { event, createdAt: createdAt.toISOString(), ...fields };
  return crafted as RecordedEvent;
}
