import { z } from 'zod';
import { MESSAGE_PURPOSES } from '../messaging/templates.ts';
import {
  ALL_EVENTS,
  type DataEventName,
  type EventName,
  type ExceptionEventName,
  type ImpersonationEventName,
  type InteractionEventName,
} from './catalogue.ts';
import {
  applicationSummarySchema,
  organizationRoleSchema,
  organizationSchema,
  organizationScopeSchema,
  roleSchema,
  scopeSchema,
  userSchema,
} from './entity-schemas.ts';
import { INTERACTION_KINDS, type EventPayloads, type RecordedEvent } from './payloads.ts';

/**
 * Every event as consumers receive it, one zod schema per name, from which the published JSON Schemas (draft 2020-12)
 * are generated. They are tied to the payload types the code emits (lib/events/payloads.ts) at compile time: each
 * event type must be assignable to its schema, field for field (see `Checked` below), so neither can change alone.
 */

const interactionKind = z.enum(Object.values(INTERACTION_KINDS) as [string, ...string[]]);

const head = <N extends EventName>(name: N) => ({
  event: z.literal(name),
  createdAt: z.string().describe('ISO 8601 time the event happened'),
  sequence: z.number().int().describe('Place in the commit order of every event, from 1, without gaps'),
});
const hookId = {
  hookId: z.string().optional().describe('The hook a webhook delivery is for; absent from GET /api/events'),
};
const version = {
  version: z.number().int().min(1).describe("The entity's version after this change: 1, then one more per change"),
};

const managementContext = {
  ip: z.string(),
  userAgent: z.string().optional(),
  path: z.string().describe('Relative to /api'),
  method: z.string(),
  status: z.number().int(),
  params: z.record(z.string(), z.string()),
  matchedRoute: z.string(),
};
const experienceContext = {
  interactionEvent: interactionKind,
  sessionId: z.string(),
  applicationId: z.string().optional(),
  userAgent: z.string().optional(),
  ip: z.string(),
};
const exceptionContext = {
  ip: z.string().optional(),
  userAgent: z.string().optional(),
  interactionEvent: interactionKind.optional(),
  sessionId: z.string().optional(),
  applicationId: z.string().optional(),
};

const dataPayloads = {
  'User.Created': { data: userSchema },
  'User.Deleted': { data: userSchema },
  'User.Data.Updated': { data: userSchema },
  'User.SuspensionStatus.Updated': { data: userSchema },
  'Role.Created': { data: roleSchema },
  'Role.Deleted': { data: roleSchema },
  'Role.Data.Updated': { data: roleSchema },
  'Role.Scopes.Updated': {
    roleId: z.string(),
    data: z.array(scopeSchema).describe("The role's scopes after the change"),
  },
  'Scope.Created': { data: scopeSchema },
  'Scope.Deleted': { data: scopeSchema },
  'Scope.Data.Updated': { data: scopeSchema },
  'Organization.Created': { data: organizationSchema },
  'Organization.Deleted': { data: organizationSchema },
  'Organization.Data.Updated': { data: organizationSchema },
  'Organization.Membership.Updated': {
    organizationId: z.string(),
    addedUserIds: z.array(z.string()).optional(),
    removedUserIds: z.array(z.string()).optional(),
    addedApplicationIds: z.array(z.string()).optional(),
    removedApplicationIds: z.array(z.string()).optional(),
    data: organizationSchema,
  },
  'OrganizationRole.Created': { data: organizationRoleSchema },
  'OrganizationRole.Deleted': { data: organizationRoleSchema },
  'OrganizationRole.Data.Updated': { data: organizationRoleSchema },
  'OrganizationRole.Scopes.Updated': {
    organizationRoleId: z.string(),
    data: z
      // API-resource scopes first: an organization scope's shape is a part of theirs, so read first it would take
      // them too and drop their resourceId.
      .union([z.array(scopeSchema), z.array(organizationScopeSchema)])
      .describe("The role's scopes after the change"),
  },
  'OrganizationScope.Created': { data: organizationScopeSchema },
  'OrganizationScope.Deleted': { data: organizationScopeSchema },
  'OrganizationScope.Data.Updated': { data: organizationScopeSchema },
} satisfies Record<DataEventName, z.ZodRawShape>;

const interactionPayload = {
  userId: z.string(),
  user: userSchema,
  application: applicationSummarySchema.optional(),
};

const otherPayloads = {
  'Identifier.Lockout': { type: z.enum(['email', 'phone', 'username', 'userId']), value: z.string() },
  'Message.RateLimited': { action: z.enum(MESSAGE_PURPOSES), recipient: z.string() },
  'Grant.LimitExceeded': {
    userId: z.string(),
    applicationId: z.string(),
    revokedGrantIds: z.array(z.string()),
    maxAllowedGrants: z.number().int(),
    preRevocationActiveGrantCount: z.number().int(),
  },
  'User.Impersonated': {
    impersonationId: z.string(),
    userId: z.string(),
    applicationId: z.string(),
    actorUserId: z.string().nullable(),
    reason: z.string().nullable(),
    resource: z.string().nullable(),
    scope: z.string(),
    expiresAt: z.string(),
  },
  'Impersonation.Revoked': {
    impersonationId: z.string(),
    userId: z.string(),
    applicationId: z.string(),
    actorUserId: z.string().nullable(),
    resource: z.string().nullable(),
    revokedBy: z.string(),
    revokedAt: z.string(),
    expiresAt: z.string(),
  },
} satisfies Record<ExceptionEventName | ImpersonationEventName, z.ZodRawShape>;

function dataEvent<N extends DataEventName>(name: N) {
  const payload = dataPayloads[name] as (typeof dataPayloads)[N];
  return z.union([
    z
      .object({ ...head(name), ...version, ...managementContext, ...payload, ...hookId })
      .describe('From the management API'),
    z
      .object({ ...head(name), ...version, ...experienceContext, ...payload, ...hookId })
      .describe('From an end-user flow'),
  ]);
}

function interactionEvent<N extends InteractionEventName>(name: N) {
  return z.object({
    ...head(name),
    interactionEvent: z.literal(INTERACTION_KINDS[name]),
    sessionId: z.string(),
    userIp: z.string(),
    userAgent: z.string().optional(),
    ...interactionPayload,
    ...hookId,
  });
}

function otherEvent<N extends ExceptionEventName | ImpersonationEventName>(name: N) {
  const payload = otherPayloads[name];
  // What the payload states itself (an impersonation's applicationId) is its own field, not the request's.
  const context = Object.fromEntries(Object.entries(exceptionContext).filter(([key]) => !(key in payload))) as Omit<
    typeof exceptionContext,
    keyof (typeof otherPayloads)[N]
  >;
  return z.object({ ...head(name), ...context, ...payload, ...hookId });
}

const SCHEMAS = {
  PostRegister: interactionEvent('PostRegister'),
  PostSignIn: interactionEvent('PostSignIn'),
  PostResetPassword: interactionEvent('PostResetPassword'),
  ...(Object.fromEntries(
    Object.keys(dataPayloads).map((name) => [name, dataEvent(name as DataEventName)]),
  ) as unknown as {
    [N in DataEventName]: ReturnType<typeof dataEvent<N>>;
  }),
  ...(Object.fromEntries(
    Object.keys(otherPayloads).map((name) => [name, otherEvent(name as ExceptionEventName)]),
  ) as unknown as {
    [N in ExceptionEventName | ImpersonationEventName]: ReturnType<typeof otherEvent<N>>;
  }),
} satisfies Record<EventName, z.ZodType>;

/**
 * The compile-time tie: every event the code can emit is assignable to its schema's type, and both name the same
 * fields. A field added to a payload type and not to its schema (or the other way round) fails `tsc`.
 */
type Fits<A, B> = [A] extends [B] ? true : false;
type SameKeys<A, B> = [Exclude<keyof A, 'hookId'>] extends [keyof B]
  ? [Exclude<keyof B, 'hookId'>] extends [keyof A]
    ? true
    : false
  : false;
type Check<N extends EventName> =
  Fits<RecordedEvent<N>, z.output<(typeof SCHEMAS)[N]>> extends true
    ? SameKeys<RecordedEvent<N>, z.output<(typeof SCHEMAS)[N]>>
    : false;
/** The events whose type and schema differ: none, or this declaration fails to compile. */
type Mismatched = { [N in EventName]: Check<N> extends true ? never : N }[EventName];
const everyEventMatches: [Mismatched] extends [never] ? true : Mismatched = true;
void everyEventMatches;

/** The published JSON Schema (draft 2020-12) of one event type, as webhooks deliver it and GET /api/events lists it. */
export function eventJsonSchema(name: EventName): Record<string, unknown> {
  return z.toJSONSchema(SCHEMAS[name], { target: 'draft-2020-12' }) as Record<string, unknown>;
}

/** Every event type's schema, by name (the OpenAPI document's `webhooks`). */
export function eventJsonSchemas(): Record<EventName, Record<string, unknown>> {
  return Object.fromEntries(ALL_EVENTS.map((name) => [name, eventJsonSchema(name)])) as Record<
    EventName,
    Record<string, unknown>
  >;
}

/**
 * A data event's payload as consumers receive it: `data` in its published shape, which is the shape the management
 * API answers the entity in (fields the schema does not name are dropped).
 */
export function publishedPayload<N extends DataEventName>(name: N, payload: EventPayloads[N]): EventPayloads[N] {
  return { ...payload, data: dataPayloads[name].data.parse(payload.data) };
}
