export { createIdentityService, type IdentityService, type IdentityServiceOptions } from './service.ts';
export { DomainError, type ErrorCode } from '../lib/errors.ts';
export { ALL_EVENTS, type EventName } from '../lib/events/catalogue.ts';
export type { EventPayloads, IdentityEvent } from '../lib/events/payloads.ts';
export {
  MESSAGE_PURPOSES,
  type Messaging,
  type MessagePurpose,
  type MessageTemplate,
  type MessageTemplates,
  type Recipient,
} from '../lib/messaging/index.ts';
export { StoreUnavailableError } from '../lib/store-unavailable.ts';
export type {
  CustomizerContext,
  CustomizerInput,
  CustomizerToken,
  FunctionCustomizer,
} from '../lib/jwt-customizer/claims.ts';
