import { Ajv2020 } from 'ajv/dist/2020.js';
import { expect } from 'chai';
import { isEventName } from '../../lib/events/catalogue.ts';
import { eventJsonSchema } from '../../lib/events/schemas.ts';

const ajv = new Ajv2020({ allErrors: true, strict: true });
const validators = new Map<string, ReturnType<typeof ajv.compile>>();

/**
 * Checks a payload against its event type's published JSON Schema (the one GET /api/hook-events/:event/schema
 * answers) with ajv, a validator independent of the zod schemas it was generated from.
 */
export function expectMatchesSchema(payload: Record<string, unknown>, label = String(payload.event)): void {
  const name = String(payload.event);
  expect(isEventName(name), `${label}: a known event`).to.equal(true);
  let validate = validators.get(name);
  if (!validate) {
    validate = ajv.compile(eventJsonSchema(name as Parameters<typeof eventJsonSchema>[0]));
    validators.set(name, validate);
  }
  expect(validate(payload), `${label} against its schema: ${ajv.errorsText(validate.errors)}`).to.equal(true);
}
