/** The impersonation audit's record: as stored, and as the management API and the console read it. No imports, so the console can. */

export const AUDIT_RECORD_TYPES = [
  'SubjectToken.Created',
  'SubjectToken.Refused',
  'TokenExchange.Succeeded',
  'TokenExchange.Failed',
] as const;

export interface ImpersonationRecord {
  id: string;
  type: (typeof AUDIT_RECORD_TYPES)[number];
  /** Non-secret reference shared by a token's creation and its exchanges; null when a failed exchange named none. */
  subjectTokenRef: string | null;
  /** The impersonated user; null when a failed exchange presented a token that names none (unknown, expired, spent). */
  userId: string | null;
  /** The management client that created the subject token (null as `userId`). */
  createdBy: string | null;
  /** The application that exchanged it, or tried to. */
  applicationId: string | null;
  /** The acting user, when an actor token was presented (and, for a failure, verified before it). */
  actorUserId: string | null;
  /** The requested resource. */
  resource: string | null;
  /** The granted scope of a success, the requested scope of a failure. */
  scope: string | null;
  /**
   * The error a refusal was answered with: the OAuth error of a failed exchange (`invalid_request`, `access_denied`, …),
   * the API error code of a refused subject token (`user.impersonation_protected`); null otherwise.
   */
  error: string | null;
  /** Its `error_description`: why the exchange was refused. */
  errorDescription: string | null;
  createdAt: number;
}

export const IMPERSONATION_STATUSES = ['active', 'expired', 'revoked'] as const;
export type ImpersonationStatus = (typeof IMPERSONATION_STATUSES)[number];

/** The claim every token an impersonation issued carries: the impersonation's id. */
export const IMPERSONATION_CLAIM = 'impersonation_id';

/** One successful exchange: the token it issued lives and dies with it. */
export interface Impersonation {
  id: string;
  /** The impersonated user. */
  userId: string;
  /** The application that exchanged the subject token. */
  applicationId: string;
  /** The acting user, when an actor token was presented. */
  actorUserId: string | null;
  /** The subject token's audit reference (`subjectTokenRef` in the impersonation log). */
  subjectTokenRef: string;
  /** Why, as given at subject-token creation: shown to the impersonated user. */
  reason: string | null;
  /** The management client or console admin that created the subject token. */
  createdBy: string;
  /** The token's audience: a resource indicator, an organization URN, or null for a userinfo token. */
  resource: string | null;
  scope: string;
  issuedAt: number;
  expiresAt: number;
  /** When it was revoked, or null. */
  revokedAt: number | null;
  status: ImpersonationStatus;
}
