/** The impersonation audit's record: as stored, and as the management API and the console read it. No imports, so the console can. */

export const AUDIT_RECORD_TYPES = ['SubjectToken.Created', 'TokenExchange.Succeeded', 'TokenExchange.Failed'] as const;

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
  /** The OAuth error a failed exchange was answered with (`invalid_request`, `access_denied`, …); null otherwise. */
  error: string | null;
  /** Its `error_description`: why the exchange was refused. */
  errorDescription: string | null;
  createdAt: number;
}
