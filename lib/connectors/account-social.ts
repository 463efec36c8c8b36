import { errors } from '../errors.ts';
import { newId } from '../ids.ts';
import type { KeyValueStore } from '../ports/kv.ts';
import type { User } from '../users/repository.ts';
import type { ConnectorsLibrary } from './library.ts';
import type { IdentitiesLibrary } from './identities.ts';
import type { PendingAuthorization, UpstreamProfile, Upstreams } from './upstream.ts';

/** As long as the Account API's other verification records. */
const TTL_MS = 600_000;

interface SocialRecord {
  id: string;
  userId: string;
  connectorId: string;
  pending?: PendingAuthorization;
  profile?: UpstreamProfile;
  expiresAt: number;
}

const keyOf = (id: string) => `account:verification:social:${id}`;
const notFound = () =>
  errors.account('verification_record.not_found', 'no such social verification record for this user');

/**
 * Logto's social verification of the Account API (`/api/verifications/social`): a signed-in user proves they hold
 * a social identity (the provider's callback checked like a sign-in's), then links it to their account with the
 * record, which is spent by the link. Records live ten minutes in the key-value store, bound to their user.
 */
export function createAccountSocial(deps: {
  kv: KeyValueStore;
  connectors: Pick<ConnectorsLibrary, 'usableSocial' | 'mustFindSocial'>;
  upstreams: Upstreams;
  identities: Pick<IdentitiesLibrary, 'linkSocial' | 'unlinkSocial'>;
}) {
  const { kv } = deps;

  async function find(userId: string, id: string): Promise<SocialRecord> {
    const stored = await kv.get(keyOf(id));
    const record = stored === null ? null : (JSON.parse(stored) as SocialRecord);
    if (!record || record.userId !== userId || Date.now() >= record.expiresAt) throw notFound();
    return record;
  }

  const save = (record: SocialRecord) =>
    kv.set(keyOf(record.id), JSON.stringify(record), Math.max(1, record.expiresAt - Date.now()));

  return {
    async start(userId: string, connectorId: string, target: { redirectUri: string; state: string }) {
      const { usable } = await deps.connectors.usableSocial(connectorId);
      const { url, pending } = await deps.upstreams.authorize(usable, target.redirectUri, target.state);
      const record: SocialRecord = { id: newId(), userId, connectorId, pending, expiresAt: Date.now() + TTL_MS };
      await save(record);
      return {
        verificationRecordId: record.id,
        authorizationUri: url,
        expiresAt: new Date(record.expiresAt).toISOString(),
      };
    },

    async verify(
      userId: string,
      id: string,
      connectorData: Record<string, string>,
    ): Promise<{ verificationRecordId: string }> {
      const record = await find(userId, id);
      if (!record.pending)
        throw errors.connector(
          'connector.authorization_failed',
          'this verification already used its callback: start again',
        );
      const { usable } = await deps.connectors.usableSocial(record.connectorId);
      record.profile = await deps.upstreams.callback(usable, record.pending, connectorData);
      delete record.pending;
      await save(record);
      return { verificationRecordId: record.id };
    },

    /** Links the verified identity (the record is spent: of concurrent links one wins); 409 when another user holds it. */
    async link(userId: string, id: string): Promise<User> {
      const record = await find(userId, id);
      if (!record.profile)
        throw errors.account('verification_record.not_found', 'this social verification has not succeeded yet');
      if ((await kv.getDel(keyOf(id))) === null) throw notFound();
      const { metadata } = await deps.connectors.mustFindSocial(record.connectorId);
      const { id: identityId, email, name, avatar, rawData } = record.profile;
      const details = {
        id: identityId,
        ...(email && { email }),
        ...(name && { name }),
        ...(avatar && { avatar }),
        rawData,
      };
      return (await deps.identities.linkSocial(userId, metadata.target, { userId: identityId, details })).user;
    },

    unlink: (userId: string, target: string) => deps.identities.unlinkSocial(userId, target),
  };
}
