import type { EventName } from '../../lib/events/catalogue.ts';
import type { IdentityEvent } from '../../lib/events/bus.ts';

/**
 * An event with any fields, as a producer with a bug might publish it: the delivery tests need payloads no
 * producer can build (partial entities, secret-looking fields) to show what delivery does with whatever it gets.
 */
export function craftedEvent(event: EventName, fields: Record<string, unknown>, createdAt = new Date()): IdentityEvent {
  const crafted: Record<string, unknown> = { event, createdAt: createdAt.toISOString(), ...fields };
  return crafted as IdentityEvent;
}
