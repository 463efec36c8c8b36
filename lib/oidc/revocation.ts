import { collectionName } from './adapter.ts';
import type { DocumentStore } from '../ports/documents.ts';

/** OIDC models that hang off a grant: deleting a grant must take these with it. */
const GRANT_BOUND_MODELS = [
  'AccessToken',
  'RefreshToken',
  'AuthorizationCode',
  'DeviceCode',
  'BackchannelAuthenticationRequest',
];

interface OidcDoc {
  _id: string;
  grantId?: string;
  payload: { accountId?: string; clientId?: string };
  expiresAt?: Date;
}

/** What node-oidc-provider keeps of a browser session: who signed in when, and what each client was given in it. */
export interface StoredSession {
  payload: {
    uid: string;
    jti: string;
    iat: number;
    exp: number;
    loginTs: number;
    accountId: string;
    /** Per client id: the `sid` its ID tokens carry, the grant it holds, whether that grant outlives sign-out. */
    authorizations?: Record<string, { sid?: string; grantId?: string; persistsLogout?: boolean }>;
  };
  expiresAt: Date;
}

/** The grants a session gave its clients (node-oidc-provider's `authorizations`, one per client). */
function grantsOfSession(session: OidcDoc): string[] {
  const authorizations =
    (session.payload as { authorizations?: Record<string, { grantId?: string }> }).authorizations ?? {};
  return Object.values(authorizations)
    .map((authorization) => authorization.grantId)
    .filter((id) => id !== undefined);
}

/**
 * Ends what node-oidc-provider holds for a user, straight on its collections (see `adapter.ts`): sessions,
 * grants, and every token issued under those grants. Used when a user is suspended or deleted, so that
 * neither a browser session nor a refresh token outlives the decision, and (all but the asking device's) when a
 * user changes their password.
 */
export function createOidcRevocation(store: DocumentStore) {
  const model = (name: string) => store.collection<OidcDoc>(collectionName(name));
  // MongoDB's TTL monitor removes expired documents a minute or more late: counts compare the expiry themselves.
  const isLive = (doc: OidcDoc, now: number) => doc.expiresAt === undefined || doc.expiresAt.getTime() > now;

  async function revokeGrants(grantIds: string[]): Promise<void> {
    if (grantIds.length === 0) return;
    await model('Grant').deleteMany({ _id: { $in: grantIds } });
    for (const name of GRANT_BOUND_MODELS) await model(name).deleteMany({ grantId: { $in: grantIds } });
  }

  return {
    async prepare() {
      for (const name of ['Session', 'Grant', 'AccessToken']) {
        await model(name).createIndex({ keys: { 'payload.accountId': 1 } });
      }
      await model('Grant').createIndex({ keys: { 'payload.clientId': 1 } });
      // Deleting an application deletes its access tokens by client id.
      await model('AccessToken').createIndex({ keys: { 'payload.clientId': 1 } });
    },
    revokeGrants,
    /**
     * Deletes the user's sessions, grants and their tokens; returns how many sessions and grants ended. With
     * `keepGrantId`, that grant, its tokens and the session it was given in stay (the device asking for the change).
     */
    async revokeUser(
      accountId: string,
      options: { keepGrantId?: string } = {},
    ): Promise<{ sessions: number; grants: number }> {
      const now = Date.now();
      const keep = options.keepGrantId;
      const grants = (
        await model('Grant').find({ 'payload.accountId': accountId }, { projection: { _id: 1, expiresAt: 1 } })
      ).filter((grant) => grant._id !== keep);
      const sessions = (await model('Session').find({ 'payload.accountId': accountId })).filter(
        (session) => keep === undefined || !grantsOfSession(session).includes(keep),
      );
      await model('Session').deleteMany({ _id: { $in: sessions.map((session) => session._id) } });
      await revokeGrants(grants.map((grant) => grant._id));
      // Opaque access tokens issued outside a grant (e.g. token exchange) still name the account.
      const tokens =
        keep === undefined
          ? []
          : await model('AccessToken').find({ 'payload.accountId': accountId }, { projection: { _id: 1, grantId: 1 } });
      await model('AccessToken').deleteMany(
        keep === undefined
          ? { 'payload.accountId': accountId }
          : { _id: { $in: tokens.filter((token) => token.grantId !== keep).map((token) => token._id) } },
      );
      return {
        sessions: sessions.filter((doc) => isLive(doc, now)).length,
        grants: grants.filter((doc) => isLive(doc, now)).length,
      };
    },
    /** The user's live sessions, oldest sign-in first. */
    async sessionsOf(accountId: string): Promise<StoredSession[]> {
      const sessions = await model('Session').find(
        { 'payload.accountId': accountId, expiresAt: { $gt: new Date() } },
        { sort: { createdAt: 1, _id: 1 } },
      );
      return sessions as unknown as StoredSession[];
    },
    /** The live session with that uid (the identifier that is not its cookie), whoever's it is. */
    async sessionByUid(uid: string): Promise<StoredSession | undefined> {
      const session = await model('Session').findOne({ uid, expiresAt: { $gt: new Date() } });
      return (session ?? undefined) as unknown as StoredSession | undefined;
    },
    /** Deletes the session: its browser is signed out; the grants it gave stay unless revoked with `revokeGrants`. */
    async endSession(uid: string): Promise<void> {
      await model('Session').deleteMany({ uid });
    },
    /** A user's live grants for one application, oldest first. */
    async activeGrants(accountId: string, clientId: string): Promise<string[]> {
      const grants = await model('Grant').find(
        { 'payload.accountId': accountId, 'payload.clientId': clientId, expiresAt: { $gt: new Date() } },
        { sort: { createdAt: 1, _id: 1 }, projection: { _id: 1 } },
      );
      return grants.map((grant) => grant._id);
    },
    /** Deletes every grant of an application and the tokens issued under them (the application is gone). */
    async revokeClient(clientId: string): Promise<number> {
      const now = Date.now();
      const grants = await model('Grant').find(
        { 'payload.clientId': clientId },
        { projection: { _id: 1, expiresAt: 1 } },
      );
      await revokeGrants(grants.map((grant) => grant._id));
      await model('AccessToken').deleteMany({ 'payload.clientId': clientId });
      return grants.filter((doc) => isLive(doc, now)).length;
    },
  };
}

export type OidcRevocation = ReturnType<typeof createOidcRevocation>;
