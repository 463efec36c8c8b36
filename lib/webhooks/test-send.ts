import type { EventName } from '../events/catalogue.ts';
import { newId } from '../ids.ts';
import { hookErrors } from './errors.ts';
import type { HookConfig, HookRecord } from './hooks.ts';
import { eventText } from './payload.ts';
import { sendDelivery, type DeliveryPolicy } from './processor.ts';
import { sampleEvent } from './samples.ts';

/**
 * `POST /api/hooks/:id/test`: one sample payload per event, sent now, signed with the hook's keys, to the
 * given config (which need not be saved yet). Nothing is queued, retried or logged; the first failure is
 * the answer.
 */
export async function sendTestPayloads(
  hook: HookRecord,
  request: { events: EventName[]; config: HookConfig },
  policy: DeliveryPolicy,
): Promise<void> {
  const target = { ...hook, config: request.config };
  for (const event of request.events) {
    const delivery = { deliveryId: `test_${newId()}`, payload: eventText(sampleEvent(event)) };
    const result = await sendDelivery(target, delivery, policy);
    if (result.ok) continue;
    if (result.refused !== undefined) throw hookErrors.destinationNotAllowed(result.refused);
    if (result.status !== undefined)
      throw hookErrors.endpointRespondedWithError(result.status, result.responseBody ?? '');
    throw hookErrors.sendTestPayloadFailed(result.error ?? 'unknown error');
  }
}
