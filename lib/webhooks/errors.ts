import { errors } from '../errors.ts';

/** Webhook errors, with Logto's codes where Logto has one. */
export const hookErrors = {
  missingEvents: () => errors.invalid('hook.missing_events', 'a hook needs at least one event in `events`'),
  unknownEvents: (unknownEvents: string[], validEvents: readonly string[]) =>
    errors.invalidInput(`unknown events: ${unknownEvents.join(', ')}; valid events are ${validEvents.join(', ')}`, {
      unknownEvents,
      validEvents,
    }),
  endpointRespondedWithError: (responseStatus: number, responseBody: string) =>
    errors.unprocessable('hook.endpoint_responded_with_error', `the endpoint responded with HTTP ${responseStatus}`, {
      responseStatus,
      responseBody,
    }),
  sendTestPayloadFailed: (reason: string) =>
    errors.unprocessable('hook.send_test_payload_failed', `the test payload could not be sent: ${reason}`, { reason }),
  destinationNotAllowed: (reason: string) => errors.unprocessable('hook.destination_not_allowed', reason),
  disabled: (hookId: string) => errors.unprocessable('hook.disabled', `hook ${hookId} is disabled; enable it first`),
  rotationConflict: () =>
    errors.conflict('hook.signing_key_rotation_conflict', 'the signing key changed meanwhile; retry'),
  deliveryUnavailable: () => errors.dependencyDown('webhook delivery'),
};
