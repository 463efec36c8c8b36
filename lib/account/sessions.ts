import { errors } from '../errors.ts';
import type { ApplicationsRepository } from '../applications/repository.ts';
import type { OidcRevocation } from '../oidc/revocation.ts';
import { SESSIONS_SCOPE } from '../oidc/claims.ts';
import type { StoredSession } from '../oidc/revocation.ts';
import type { AccountPrincipal } from './auth.ts';

/** Logto's `SessionGrantRevokeTarget`: with a session, also end the grants it gave every application, or first-party ones. */
export const REVOKE_GRANTS_TARGETS = ['all', 'firstParty'] as const;
export type RevokeGrantsTarget = (typeof REVOKE_GRANTS_TARGETS)[number];

/** One session as the Account API shows it to its user (Logto's `accountUserExtendedSessionGuard`). */
export interface AccountSession {
  payload: StoredSession['payload'] & { kind: 'Session' };
  /** Logto keeps the sign-in's interaction beside the session; this service keeps none. */
  lastSubmission: null;
  /** The application the user signed in through: the first one the session authorized. */
  clientId: string | null;
  accountId: string;
  /** Milliseconds since the epoch. */
  expiresAt: number;
  /** The session the calling token was issued in. */
  isCurrent: boolean;
}

/**
 * What the stored payload may show: node-oidc-provider also keeps there the end-session form's secret (`state`),
 * which a page of the service checks; only the fields below leave. The session's `jti` is its cookie's value, but
 * the cookie is signed with the service's keys: the id alone opens nothing.
 */
function present(session: StoredSession, current: string | undefined): AccountSession {
  const { uid, jti, iat, exp, loginTs, accountId, authorizations } = session.payload;
  const shown = authorizations
    ? Object.fromEntries(
        Object.entries(authorizations).map(([clientId, { sid, grantId, persistsLogout }]) => [
          clientId,
          { sid, grantId, persistsLogout },
        ]),
      )
    : undefined;
  return {
    payload: { uid, jti, iat, exp, loginTs, accountId, kind: 'Session', ...(shown && { authorizations: shown }) },
    lastSubmission: null,
    clientId: Object.keys(authorizations ?? {})[0] ?? null,
    accountId,
    expiresAt: session.expiresAt.getTime(),
    isCurrent: current !== undefined && uid === current,
  };
}

/** Without `urn:logto:scope:sessions` the token is not one for this (Logto's 401). */
function assertSessionsScope(principal: AccountPrincipal): void {
  if (!principal.scopes.has(SESSIONS_SCOPE)) {
    throw errors.unauthorized(`the token lacks the scope ${SESSIONS_SCOPE}`);
  }
}

/** The user's browser sessions (`/api/my-account/sessions`): listed, and ended one by one. */
export function createAccountSessions(deps: { oidcRevocation: OidcRevocation; applications: ApplicationsRepository }) {
  const { oidcRevocation, applications } = deps;

  return {
    async list(principal: AccountPrincipal): Promise<{ sessions: AccountSession[] }> {
      assertSessionsScope(principal);
      const sessions = await oidcRevocation.sessionsOf(principal.userId);
      return { sessions: sessions.map((session) => present(session, principal.sessionUid)) };
    },

    /**
     * Signs the session out, and with `target` also ends the grants it gave (their refresh and access tokens with
     * them). Only a first-party application may: a third party holding the scope could otherwise sign the user out
     * of everything.
     */
    async end(principal: AccountPrincipal, uid: string, target: RevokeGrantsTarget | undefined): Promise<void> {
      assertSessionsScope(principal);
      const client = await applications.findById(principal.clientId);
      if (!client || client.isThirdParty) {
        throw errors.refused(
          'auth.third_party_application_forbidden',
          'only first-party applications may end the user sessions',
        );
      }
      const session = await oidcRevocation.sessionByUid(uid);
      if (!session) throw errors.absent('oidc.session_not_found', 'no such session');
      if (session.payload.accountId !== principal.userId) {
        throw errors.absent('oidc.invalid_session_account_id', 'the session belongs to another user');
      }
      if (target) {
        const given = Object.entries(session.payload.authorizations ?? {});
        const firstParty =
          target === 'firstParty'
            ? new Set(
                (await applications.findByIds(given.map(([clientId]) => clientId)))
                  .filter((application) => !application.isThirdParty)
                  .map((application) => application.id),
              )
            : undefined;
        const grantIds = given
          .filter(([clientId]) => !firstParty || firstParty.has(clientId))
          .map(([, authorization]) => authorization.grantId)
          .filter((grantId) => grantId !== undefined);
        await oidcRevocation.revokeGrants([...new Set(grantIds)]);
      }
      await oidcRevocation.endSession(uid);
    },
  };
}
