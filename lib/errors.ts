import { DuplicateKeyError } from './ports/documents.ts';

/**
 * What kind of failure an error is. Domain code states only this; each surface (JSON on /api, HTML on the
 * sign-in pages) turns a kind into an HTTP status in one place, `lib/http/errors.ts`.
 */
export type ErrorKind =
  | 'invalid'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'conflict'
  | 'gone'
  | 'too_large'
  | 'unsupported'
  | 'rule'
  | 'rate_limited'
  | 'bad_gateway'
  | 'unavailable'
  | 'internal';

/** Every error code the service answers with, and its kind: the closed set clients switch on. */
const ERROR_CODES = {
  'guard.invalid_input': 'invalid',
  'guard.invalid_json': 'invalid',
  'guard.invalid_body_encoding': 'invalid',
  'guard.payload_too_large': 'too_large',
  'guard.unsupported_media_type': 'unsupported',
  'guard.unsupported_content_encoding': 'unsupported',
  /** A request the body parser or router refused for a reason none of the codes above names. */
  'request.invalid': 'invalid',
  /** Logto's 422 for a well-formed request its state refuses (e.g. inviting someone already a member). */
  'request.invalid_input': 'rule',
  'auth.unauthorized': 'unauthenticated',
  'auth.forbidden': 'forbidden',
  'entity.not_found': 'not_found',
  /** An update that names nothing to change (Logto's 422). */
  'entity.invalid_input': 'rule',
  /** Logto's code for an entity looked up by its id. */
  'entity.not_exists_with_id': 'not_found',
  /** Logto's code where its update of an entity by id found none (e.g. `PATCH /hooks/:id`). */
  'entity.not_exists': 'not_found',
  /** Logto's 422 for a relation naming an entity that does not exist (an organization's members, roles, scopes). */
  'entity.relation_foreign_key_not_found': 'rule',
  'entity.unique_integrity_violation': 'conflict',
  'route.not_found': 'not_found',
  'route.method_not_allowed': 'method_not_allowed',
  'application.no_secret': 'rule',
  'application.protected': 'rule',
  'application.refresh_token_rotation_required': 'rule',
  'application.setting_not_applicable': 'rule',
  /** Only MachineToMachine applications hold roles (Logto's code). */
  'application.invalid_type': 'rule',
  /** Only MachineToMachine roles can be assigned to applications. */
  'application.invalid_role_type': 'rule',
  'application.role_exists': 'rule',
  'application.third_party_token_exchange': 'rule',
  /** Third-party applications sign users in: Traditional, SPA or Native only. */
  'application.invalid_third_party_application_type': 'invalid',
  'connector.not_found': 'rule',
  /** `POST /api/connectors` names a factory the service does not have (`GET /api/connector-factories`). */
  'connector.not_found_with_connector_id': 'rule',
  /** `POST /api/connectors` without `metadata.target`, which every connector here needs. */
  'connector.should_specify_target': 'invalid',
  /** A social or enterprise connector's config is refused, or its upstream (discovery) does not answer as one. */
  'connector.invalid_config': 'invalid',
  /** The upstream's answer to the callback is malformed or an error (`error=` in the callback, a bad token response). */
  'connector.invalid_response': 'invalid',
  /** The callback does not belong to the authorization this sign-in started (state mismatch, no pending request). */
  'connector.authorization_failed': 'unauthenticated',
  /** The upstream refused the authorization code: wrong, expired or already used. */
  'connector.social_auth_code_invalid': 'unauthenticated',
  /** The upstream's ID token does not verify (signature, issuer, audience, nonce). */
  'connector.social_id_token_invalid': 'unauthenticated',
  /** The upstream could not be reached, or is refused by the outbound policy at request time. */
  'connector.upstream_unreachable': 'bad_gateway',
  /** Another social connector already serves this `metadata.target`. */
  'connector.multiple_target_with_same_platform': 'conflict',
  'single_sign_on.duplicate_connector_name': 'conflict',
  /** An email domain already served by another enterprise connector. */
  'single_sign_on.duplicated_domains': 'conflict',
  'single_sign_on.invalid_domain_format': 'invalid',
  /** No account has this social identity (`data.relatedUser`: a verified email an existing account has). */
  'user.identity_not_exist': 'not_found',
  'user.identity_already_in_use': 'conflict',
  'user.enterprise_sso_identity_not_exists': 'not_found',
  /** An email of a domain an enterprise SSO connector serves signs in through that connector only. */
  'session.sso_enabled': 'rule',
  /** The built-in management API resource: only its token lifetime may change. */
  'resource.cannot_modify_management_api': 'invalid',
  'role.protected': 'rule',
  'role.name_in_use': 'conflict',
  'resource.resource_identifier_in_use': 'conflict',
  /** Logto's 400: management API scopes never go on a User role. */
  'role.management_api_scopes_not_assignable_to_user_role': 'invalid',
  /** Only User roles can be assigned to users. */
  'user.invalid_role_type': 'rule',
  'role.scope_exists': 'rule',
  'role.user_exists': 'rule',
  'role.application_exists': 'rule',
  'user.suspended': 'rule',
  'session.invalid_credentials': 'rule',
  /** Experience API: the interaction cookie names no live OIDC interaction. */
  'session.not_found': 'invalid',
  /** Experience API: no experience was started for the interaction (`PUT /api/experience`). */
  'session.interaction_not_found': 'not_found',
  'session.verification_session_not_found': 'not_found',
  'session.verification_failed': 'invalid',
  'session.identifier_not_found': 'not_found',
  'session.identity_conflict': 'conflict',
  /** Another request changed this interaction's experience while this one worked on it: nothing of this one was kept. */
  'session.concurrent_update': 'conflict',
  'session.invalid_interaction_type': 'invalid',
  'session.not_supported_for_forgot_password': 'invalid',
  'session.verification_blocked_too_many_attempts': 'rate_limited',
  'user.sign_in_method_not_enabled': 'rule',
  'user.user_not_exist': 'not_found',
  'user.missing_profile': 'rule',
  'user.username_already_in_use': 'conflict',
  'user.email_already_in_use': 'conflict',
  'user.phone_already_in_use': 'conflict',
  'user.username_exists_in_profile': 'rule',
  'user.email_exists_in_profile': 'rule',
  'user.phone_exists_in_profile': 'rule',
  'user.password_exists_in_profile': 'rule',
  'user.same_password': 'rule',
  'user.new_password_required_in_profile': 'rule',
  /** Multi-factor authentication (Logto's codes): a wrong code, a factor the settings do not offer, a step missing. */
  'session.mfa.invalid_totp_code': 'invalid',
  'session.mfa.invalid_backup_code': 'invalid',
  'session.mfa.mfa_factor_not_enabled': 'invalid',
  'session.mfa.pending_info_not_found': 'invalid',
  'session.mfa.require_mfa_verification': 'forbidden',
  /** A passkey's answer does not verify: wrong origin or RP ID, bad signature, unknown credential, counter gone back. */
  'session.mfa.webauthn_verification_failed': 'invalid',
  /** Asked for a passkey of an account that has none. */
  'session.mfa.webauthn_verification_not_found': 'invalid',
  'session.mfa.backup_code_required': 'rule',
  'session.mfa.backup_code_can_not_be_alone': 'rule',
  'session.mfa.mfa_policy_not_user_controlled': 'rule',
  'user.missing_mfa': 'rule',
  'user.totp_already_in_use': 'rule',
  'user.backup_code_already_in_use': 'rule',
  'user.totp_secret_invalid': 'invalid',
  'user.wrong_backup_code_format': 'rule',
  'verification_code.email_mismatch': 'invalid',
  /** Account API: a sensitive change without a fresh identity verification named by `logto-verification-id`. */
  'verification_record.permission_denied': 'unauthenticated',
  /** Account API: the verification record named is unknown, expired, another user's, unverified or already spent. */
  'verification_record.not_found': 'invalid',
  /** An impersonation (token-exchange) token may read the account, never change it, and never enter the Experience API. */
  'auth.impersonation_not_allowed': 'forbidden',
  /** A resource server's own endpoint called by an application that serves no API (holds no API scope). */
  'auth.not_a_resource_server': 'forbidden',
  /** The user holds a protected role (console admin, management API scopes, IMPERSONATION_PROTECTED_ROLES). */
  'user.impersonation_protected': 'rule',
  'account_center.not_enabled': 'forbidden',
  /** The account center has the field `Off`: not shown to the user. */
  'account_center.field_not_enabled': 'forbidden',
  /** The account center has the field `Off` or `ReadOnly`: the user may not change it. */
  'account_center.field_not_editable': 'forbidden',
  /** Account API: a route only first-party applications may call (ending a session), called with a third party's token. */
  'auth.third_party_application_forbidden': 'forbidden',
  /** Account API: no live session has that uid. */
  'oidc.session_not_found': 'not_found',
  /** Account API: the session named is another user's (told apart from an unknown one as Logto does, and as 404). */
  'oidc.invalid_session_account_id': 'not_found',
  /** The change would leave the account without any identifier to sign in with. */
  'user.last_sign_in_method_required': 'rule',
  /** The sign-up settings require an email address (or, with phone also allowed, one of the two). */
  'user.email_required': 'rule',
  'user.phone_required': 'rule',
  'user.email_or_phone_required': 'rule',
  'verification_code.phone_mismatch': 'invalid',
  'organization.application_type_not_allowed': 'rule',
  'organization.require_membership': 'rule',
  'organization.role_type_mismatch': 'rule',
  /** `organizationRoleNames` named roles that do not exist; `data.names` lists them. */
  'organization.role_names_not_found': 'rule',
  'organization_role.management_api_scopes_not_assignable': 'rule',
  'organization_invitation.not_pending': 'rule',
  'hook.missing_events': 'invalid',
  'hook.disabled': 'rule',
  'hook.endpoint_responded_with_error': 'rule',
  'hook.send_test_payload_failed': 'rule',
  /** A hook's URL points at a non-public address outside WEBHOOK_ALLOWED_NETWORKS. */
  'hook.destination_not_allowed': 'rule',
  'hook.signing_key_rotation_conflict': 'conflict',
  /** An events cursor that is not one this service hands out (`GET /api/events?after=`). */
  'event.invalid_cursor': 'invalid',
  /** An events cursor older than the retained events: events after it were removed unread (EVENT_RETENTION_DAYS). */
  'event.cursor_expired': 'gone',
  /** The script called `api.denyAccess()` (403, as Logto's test endpoint answers). */
  'jwt_customizer.access_denied': 'forbidden',
  'jwt_customizer.script_error': 'rule',
  /** A customizer script stored with `PUT`/`PATCH` does not compile, so it could never run. */
  'jwt_customizer.syntax_error': 'invalid',
  /** A password breaks the sign-in experience's password policy; `data.problems` lists every broken rule. */
  'password.rejected': 'rule',
  /** Sign-in experience settings refused: a Logto setting this service lacks, or an inconsistent combination. */
  'sign_in_experiences.unsupported_setting': 'rule',
  'sign_in_experiences.duplicated_sign_in_methods': 'rule',
  'sign_in_experiences.at_least_one_authentication_factor': 'rule',
  'sign_in_experiences.verification_code_requires_email_or_phone': 'rule',
  'sign_in_experiences.duplicated_sign_up_identifiers': 'rule',
  'sign_in_experiences.unsupported_sign_up_identifiers': 'rule',
  'sign_in_experiences.missing_sign_up_identifiers': 'rule',
  'sign_in_experiences.username_requires_password': 'rule',
  'sign_in_experiences.passwordless_requires_verify': 'rule',
  'sign_in_experiences.verify_requires_email_or_phone': 'rule',
  'sign_in_experiences.miss_sign_up_identifier_in_sign_in': 'rule',
  'sign_in_experiences.password_sign_in_must_be_enabled': 'rule',
  'sign_in_experiences.code_sign_in_must_be_enabled': 'rule',
  'sign_in_experiences.invalid_password_length': 'rule',
  'sign_in_experiences.pwned_check_not_supported': 'rule',
  'sign_in_experiences.update_conflict': 'conflict',
  'sign_in_experiences.duplicated_mfa_factors': 'invalid',
  'sign_in_experiences.backup_code_cannot_be_enabled_alone': 'invalid',
  /** Mandatory MFA (for everyone or organization members) with no factor users could enrol. */
  'sign_in_experiences.mandatory_mfa_requires_factors': 'invalid',
  'request.message_rate_limited': 'rate_limited',
  /** Too many failed authentications from this address or client, or too many subject tokens; see `Retry-After`. */
  'request.too_many_requests': 'rate_limited',
  /** No unspent code for this purpose and recipient: never sent, already used, replaced, or long expired. */
  'verification_code.not_found': 'invalid',
  'verification_code.expired': 'invalid',
  'verification_code.code_mismatch': 'invalid',
  'verification_code.exceed_max_try': 'rate_limited',
  /** The email or SMS provider refused or failed a message. */
  'connector.general': 'bad_gateway',
  /** The console setup link is unknown, already used or expired. */
  'console.setup_link_invalid': 'forbidden',
  /** A console admin exists: the first-admin setup is closed. */
  'console.setup_completed': 'conflict',
  'service.dependency_unavailable': 'unavailable',
  'service.internal_error': 'internal',
} as const satisfies Record<string, ErrorKind>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** The codes of one kind, e.g. `CodeOf<'rule'>` for the business rules a request can break. */
export type CodeOf<K extends ErrorKind> = {
  [C in ErrorCode]: (typeof ERROR_CODES)[C] extends K ? C : never;
}[ErrorCode];

export function kindOf(code: ErrorCode): ErrorKind {
  return ERROR_CODES[code];
}

/**
 * An expected failure with a stable `code` and a message for humans: `{ code, message, data? }` on the
 * wire. Thrown through the named factories below; the surface's error middleware renders it.
 */
export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly data: unknown;
  constructor(code: ErrorCode, message: string, data?: unknown) {
    super(message);
    this.name = 'DomainError';
    this.code = code;
    this.data = data;
  }

  get kind(): ErrorKind {
    return kindOf(this.code);
  }

  toJSON(): { code: ErrorCode; message: string; data?: unknown } {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

/** A refusal the client may retry after `retryAfterSeconds` (sent as `Retry-After`). */
export class RateLimitedError extends DomainError {
  readonly retryAfterSeconds: number | undefined;
  constructor(code: CodeOf<'rate_limited'>, message: string, retryAfterSeconds?: number) {
    super(code, message);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** The codes the Experience API answers with beyond the generic ones, all Logto's. */
export type ExperienceErrorCode = Extract<
  ErrorCode,
  `session.${string}` | `user.${string}` | `verification_code.${string}` | 'auth.forbidden'
>;

/** Logto's own codes for the unique fields it names; any other duplicate is `entity.unique_integrity_violation`. */
const DUPLICATE_CODES: Partial<Record<string, CodeOf<'conflict'>>> = {
  'user.username': 'user.username_already_in_use',
  'user.primaryEmail': 'user.email_already_in_use',
  'user.primaryPhone': 'user.phone_already_in_use',
  'role.name': 'role.name_in_use',
  'resource.indicator': 'resource.resource_identifier_in_use',
};

export const errors = {
  invalidInput: (message: string, data?: unknown) => new DomainError('guard.invalid_input', message, data),
  invalidJson: () => new DomainError('guard.invalid_json', 'request body is not valid JSON'),
  invalidRequest: () => new DomainError('request.invalid', 'the request could not be processed'),
  payloadTooLarge: () => new DomainError('guard.payload_too_large', 'request body is too large'),
  unsupportedMediaType: () => new DomainError('guard.unsupported_media_type', 'request body must be application/json'),
  invalidBodyEncoding: () =>
    new DomainError('guard.invalid_body_encoding', 'request body does not decode with its Content-Encoding'),
  unsupportedContentEncoding: (coding: string) =>
    new DomainError(
      'guard.unsupported_content_encoding',
      `Content-Encoding ${coding.slice(0, 64)} is not supported; send gzip, deflate, br or no encoding`,
    ),
  unauthorized: (message = 'a valid bearer token is required') => new DomainError('auth.unauthorized', message),
  forbidden: (scope: string) =>
    new DomainError('auth.forbidden', `the token lacks the scope required here: ${scope}`, { requiredScope: scope }),
  notFound: (entity: string, id?: string) =>
    id
      ? new DomainError('entity.not_exists_with_id', `${entity} ${id} not found`, { entity })
      : new DomainError('entity.not_found', `${entity} not found`, { entity }),
  /** An id that names nothing, answered with the code Logto gives for that entity and route when it is not `…_with_id`. */
  missing: (code: 'entity.not_found' | 'entity.not_exists', entity: string, id: string) =>
    new DomainError(code, `${entity} ${id} not found`, { entity }),
  /** Something an end user names that is not theirs to see, with Logto's code for it (a session). */
  absent: (code: Exclude<CodeOf<'not_found'>, 'entity.not_found' | 'entity.not_exists'>, message: string) =>
    new DomainError(code, message),
  /** A link a deletion names (a role of a user, a scope of a role, a member) that is not there: Logto's 404. */
  notLinked: (entity: string, id: string) =>
    new DomainError('entity.not_found', `${entity} ${id} not found`, { entity }),
  /** A relation (a member, a role, a scope of an organization) naming ids that do not exist: Logto's 422. */
  relationNotFound: (entity: string, ids: string) =>
    new DomainError('entity.relation_foreign_key_not_found', `${entity} ${ids} not found`, { entity }),
  routeNotFound: () => new DomainError('route.not_found', 'no such route'),
  methodNotAllowed: () => new DomainError('route.method_not_allowed', 'method not allowed on this route'),
  duplicate: (entity: string, field: string) =>
    new DomainError(
      DUPLICATE_CODES[`${entity}.${field}`] ?? 'entity.unique_integrity_violation',
      `${entity} with this ${field} already exists`,
      { entity, field },
    ),
  /** Input that is well-formed but invalid in a way only this domain names (e.g. `hook.missing_events`). */
  invalid: (code: CodeOf<'invalid'>, message: string, data?: unknown) => new DomainError(code, message, data),
  /** A business rule the request breaks. */
  unprocessable: (code: CodeOf<'rule'>, message: string, data?: unknown) => new DomainError(code, message, data),
  /** A refusal for a reason other than the token's scope (e.g. a customizer script denying access). */
  refused: (code: Exclude<CodeOf<'forbidden'>, 'auth.forbidden'>, message: string) => new DomainError(code, message),
  /** What the request names existed once and is gone for good. */
  gone: (code: CodeOf<'gone'>, message: string, data?: unknown) => new DomainError(code, message, data),
  /** The state changed under the request; retrying may succeed. */
  conflict: (code: CodeOf<'conflict'>, message: string, data?: unknown) => new DomainError(code, message, data),
  /** Too many requests for one subject; `retryAfterSeconds` when waiting is what helps. */
  rateLimited: (code: CodeOf<'rate_limited'>, message: string, retryAfterSeconds?: number) =>
    new RateLimitedError(code, message, retryAfterSeconds),
  /** A provider the service relies on (an email or SMS gateway) refused or failed the request. */
  badGateway: (code: CodeOf<'bad_gateway'>, message: string) => new DomainError(code, message),
  /** An Account API verification refused, with Logto's code. */
  account: (code: Extract<ErrorCode, `verification_record.${string}`>, message: string) =>
    new DomainError(code, message),
  /** An end-user flow refused, with Logto's Experience API code. */
  experience: (code: ExperienceErrorCode, message: string, data?: unknown) => new DomainError(code, message, data),
  /** A social or enterprise connector refused, misconfigured, or its upstream failing, with Logto's codes. */
  connector: (
    code: Extract<ErrorCode, `connector.${string}` | `single_sign_on.${string}`>,
    message: string,
    data?: unknown,
  ) => new DomainError(code, message, data),
  dependencyDown: (what: string) => new DomainError('service.dependency_unavailable', `${what} is unavailable`),
  internal: () => new DomainError('service.internal_error', 'internal error'),
};

/**
 * Runs a write and turns a unique-index violation into a conflict (`errors.duplicate`) naming the field: the given one, or with
 * `null` (several unique fields) the first field of the violated index.
 */
export async function unique<T>(entity: string, field: string | null, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof DuplicateKeyError) {
      throw errors.duplicate(entity, field ?? Object.keys(error.keyPattern)[0] ?? 'identifier');
    }
    throw error;
  }
}

/** Throws `entity.not_exists_with_id` (or, for a relation, Logto's 422) naming every id of `wanted` that is not in `found`. */
export function assertAllFound(
  entity: string,
  wanted: readonly string[],
  found: ReadonlyArray<{ id: string }>,
  options: { relation?: boolean } = {},
): void {
  const present = new Set(found.map((item) => item.id));
  const missing = [...new Set(wanted)].filter((id) => !present.has(id));
  if (missing.length && options.relation) throw errors.relationNotFound(entity, missing.join(', '));
  if (missing.length) throw errors.notFound(entity, missing.join(', '));
}
