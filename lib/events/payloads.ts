import type { Application } from '../applications/repository.ts';
import type { MessagePurpose } from '../messaging/templates.ts';
import type { Organization } from '../organizations/repository.ts';
import type { OrganizationRole } from '../organizations/roles-repository.ts';
import type { OrganizationScope } from '../organizations/scopes-repository.ts';
import type { Scope } from '../resources/repository.ts';
import type { Role } from '../roles/repository.ts';
import type { User } from '../users/repository.ts';
import type { DataEventName, EventName, InteractionEventName } from './catalogue.ts';

/**
 * What each event carries, by name: the facts its producer states. `createdAt` and the context of the
 * request it happened in are stamped by `EventBus.emit`, never written by producers.
 */

/** The management request a data event happened in (paths relative to `/api`). */
export type ManagementContext = {
  ip: string;
  userAgent: string | undefined;
  path: string;
  method: string;
  status: number;
  params: Record<string, string>;
  matchedRoute: string;
};

/** The end-user interaction an interaction event happened in. */
export type InteractionContext = {
  sessionId: string;
  userIp: string;
  userAgent: string | undefined;
};

/** Logto's names for the interaction behind each interaction event. */
export const INTERACTION_KINDS = {
  PostRegister: 'Register',
  PostSignIn: 'SignIn',
  PostResetPassword: 'ForgotPassword',
} as const satisfies Record<InteractionEventName, string>;

export type InteractionKind = (typeof INTERACTION_KINDS)[InteractionEventName];

/** The end-user flow a data event happened in (a sign-up, a profile change, a just-in-time membership). */
export type ExperienceDataContext = {
  interactionEvent: InteractionKind;
  sessionId: string;
  applicationId: string | undefined;
  userAgent: string | undefined;
  ip: string;
};

/** Where a data event happened: a management request, or an end-user flow. */
export type DataEventContext = ManagementContext | ExperienceDataContext;

/** What is known of the request an exception happened in, if anything; fields left out are not sent. */
export type ExceptionContext = {
  ip?: string;
  userAgent?: string;
  interactionEvent?: InteractionKind;
  sessionId?: string;
  applicationId?: string;
};

/** The entity a data event is about: as the API answered it, or a snapshot of it before a delete. */
export type DataEventPayload<T> = { data: T };

export type ApplicationSummary = Pick<Application, 'id' | 'type' | 'name' | 'description'>;

export type InteractionPayload = {
  userId: string;
  user: User;
  application: ApplicationSummary | undefined;
};

/** What a membership change did; empty lists mean nothing of that kind changed. */
export interface MembershipChanges {
  addedUserIds: string[];
  removedUserIds: string[];
  addedApplicationIds: string[];
  removedApplicationIds: string[];
}

/** What an end user typed to identify themselves, or the signed-in user's id (`userId`) for their own attempts. */
export interface Identifier {
  /** `userId`: an attempt by a signed-in user (Account API), who typed no identifier. */
  type: 'email' | 'phone' | 'username' | 'userId';
  value: string;
}

/** The membership delta: only the lists that are not empty. */
export type MembershipPayload = DataEventPayload<Organization> & {
  organizationId: string;
} & Partial<MembershipChanges>;

export type EventPayloads = {
  PostRegister: InteractionPayload;
  PostSignIn: InteractionPayload;
  PostResetPassword: InteractionPayload;
  'User.Created': DataEventPayload<User>;
  'User.Deleted': DataEventPayload<User>;
  'User.Data.Updated': DataEventPayload<User>;
  'User.SuspensionStatus.Updated': DataEventPayload<User>;
  'Role.Created': DataEventPayload<Role>;
  'Role.Deleted': DataEventPayload<Role>;
  'Role.Data.Updated': DataEventPayload<Role>;
  /** The role's scopes after the change. */
  'Role.Scopes.Updated': DataEventPayload<Scope[]> & { roleId: string };
  'Scope.Created': DataEventPayload<Scope>;
  'Scope.Deleted': DataEventPayload<Scope>;
  'Scope.Data.Updated': DataEventPayload<Scope>;
  'Organization.Created': DataEventPayload<Organization>;
  'Organization.Deleted': DataEventPayload<Organization>;
  'Organization.Data.Updated': DataEventPayload<Organization>;
  'Organization.Membership.Updated': MembershipPayload;
  'OrganizationRole.Created': DataEventPayload<OrganizationRole>;
  'OrganizationRole.Deleted': DataEventPayload<OrganizationRole>;
  'OrganizationRole.Data.Updated': DataEventPayload<OrganizationRole>;
  /** The role's scopes after the change. */
  'OrganizationRole.Scopes.Updated': DataEventPayload<OrganizationScope[] | Scope[]> & { organizationRoleId: string };
  'OrganizationScope.Created': DataEventPayload<OrganizationScope>;
  'OrganizationScope.Deleted': DataEventPayload<OrganizationScope>;
  'OrganizationScope.Data.Updated': DataEventPayload<OrganizationScope>;
  /** The identifier typed in the attempt that locked. */
  'Identifier.Lockout': Identifier;
  /** The purpose of the message refused, and the address or number it was for. */
  'Message.RateLimited': { action: MessagePurpose; recipient: string };
  'Grant.LimitExceeded': {
    userId: string;
    applicationId: string;
    revokedGrantIds: string[];
    maxAllowedGrants: number;
    preRevocationActiveGrantCount: number;
  };
  /** An exchange impersonated the user: the impersonation its token belongs to. Times are ISO 8601. */
  'User.Impersonated': {
    impersonationId: string;
    userId: string;
    applicationId: string;
    actorUserId: string | null;
    reason: string | null;
    resource: string | null;
    scope: string;
    expiresAt: string;
  };
  /** An impersonation was revoked: its token is no longer honoured (introspection answers `active: false`). */
  'Impersonation.Revoked': {
    impersonationId: string;
    userId: string;
    applicationId: string;
    actorUserId: string | null;
    resource: string | null;
    /** The management client or console admin that revoked it. */
    revokedBy: string;
    revokedAt: string;
    expiresAt: string;
  };
};

/** The context an event is stamped with. */
export type EventContext<N extends EventName> = N extends InteractionEventName
  ? InteractionContext
  : N extends DataEventName
    ? DataEventContext
    : ExceptionContext;

/** One flat object type (so an event is also a plain JSON record to anything that reads it as one). */
type Flat<T> = { [K in keyof T]: T[K] };

type Stamped<N extends EventName> = Flat<
  { event: N; createdAt: string } & (N extends InteractionEventName
    ? { interactionEvent: (typeof INTERACTION_KINDS)[N] } & InteractionContext
    : N extends DataEventName
      ? DataEventContext
      : ExceptionContext) &
    EventPayloads[N]
>;

/**
 * An event as published inside the service, one type per name; webhook fan-out adds `hookId` per
 * subscriber, the rest is what consumers receive.
 */
export type IdentityEvent<N extends EventName = EventName> = N extends EventName ? Stamped<N> : never;

/**
 * What the event log adds as an event commits: `sequence`, its place in the commit order of every event, and for a
 * data event `version`, how many committed data events its entity has had up to this one.
 */
type Recording<N extends EventName> = { sequence: number } & (N extends DataEventName ? { version: number } : unknown);

/** An event as the outbox holds it and consumers receive it: stamped, then numbered by the event log. */
export type RecordedEvent<N extends EventName = EventName> = N extends EventName
  ? Flat<Stamped<N> & Recording<N>>
  : never;

/** The event numbered: `sequence` (and a data event's `version`) right after `createdAt`. */
export function numberedEvent(stamped: IdentityEvent, sequence: number, version: number | null): RecordedEvent {
  const { event, createdAt, ...rest } = stamped;
  return { event, createdAt, sequence, ...(version === null ? {} : { version }), ...rest } as RecordedEvent;
}
