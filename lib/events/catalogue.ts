/** The webhook event catalogue: exact names, as Logto spells them. */
export const INTERACTION_EVENTS = ['PostRegister', 'PostSignIn', 'PostResetPassword'] as const;

export const DATA_EVENTS = [
  'User.Created',
  'User.Deleted',
  'User.Data.Updated',
  'User.SuspensionStatus.Updated',
  'Role.Created',
  'Role.Deleted',
  'Role.Data.Updated',
  'Role.Scopes.Updated',
  'Scope.Created',
  'Scope.Deleted',
  'Scope.Data.Updated',
  'Organization.Created',
  'Organization.Deleted',
  'Organization.Data.Updated',
  'Organization.Membership.Updated',
  'OrganizationRole.Created',
  'OrganizationRole.Deleted',
  'OrganizationRole.Data.Updated',
  'OrganizationRole.Scopes.Updated',
  'OrganizationScope.Created',
  'OrganizationScope.Deleted',
  'OrganizationScope.Data.Updated',
] as const;

export const EXCEPTION_EVENTS = ['Identifier.Lockout', 'Message.RateLimited', 'Grant.LimitExceeded'] as const;

/** Additions to Logto's events: an exchange that impersonated a user, and the kill switch ending one. */
export const IMPERSONATION_EVENTS = ['User.Impersonated', 'Impersonation.Revoked'] as const;

export const ALL_EVENTS = [
  ...INTERACTION_EVENTS,
  ...DATA_EVENTS,
  ...EXCEPTION_EVENTS,
  ...IMPERSONATION_EVENTS,
] as const;

export type EventName = (typeof ALL_EVENTS)[number];
export type InteractionEventName = (typeof INTERACTION_EVENTS)[number];
export type DataEventName = (typeof DATA_EVENTS)[number];
export type ExceptionEventName = (typeof EXCEPTION_EVENTS)[number];
export type ImpersonationEventName = (typeof IMPERSONATION_EVENTS)[number];

const known: ReadonlySet<string> = new Set(ALL_EVENTS);
const interaction: ReadonlySet<string> = new Set(INTERACTION_EVENTS);
const data: ReadonlySet<string> = new Set(DATA_EVENTS);

export function isEventName(name: string): name is EventName {
  return known.has(name);
}

export function isInteractionEvent(name: EventName): name is InteractionEventName {
  return interaction.has(name);
}

export function isDataEvent(name: EventName): name is DataEventName {
  return data.has(name);
}
