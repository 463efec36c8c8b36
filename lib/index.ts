export { createIdentityService, type IdentityService, type IdentityServiceOptions } from './service.ts';
export { DomainError, type ErrorCode } from './errors.ts';
export { ALL_EVENTS, type EventName } from './events/catalogue.ts';
export type { EventPayloads, IdentityEvent } from './events/payloads.ts';
export { MESSAGE_PURPOSES, type Messaging, type MessagePurpose, type MessageTemplate, type MessageTemplates, type Recipient } from './messaging/index.ts';
export { StoreUnavailableError } from './store-unavailable.ts';
export type { CustomizerContext, CustomizerInput, CustomizerToken, FunctionCustomizer } from './jwt-customizer/claims.ts';
