import type { DocumentStore } from '../ports/documents.ts';
import { publicShape } from '../data/entity.ts';
import { newId } from '../ids.ts';

/** Logto's `UserSsoIdentity`: one per user and enterprise connector, unique per issuer and subject. */
export interface SsoIdentity {
  id: string;
  userId: string;
  issuer: string;
  identityId: string;
  detail: Record<string, unknown>;
  ssoConnectorId: string;
  createdAt: number;
  updatedAt: number;
}

/** Which user holds a social identity: one document per (target, identity id), so two users never hold one. */
interface SocialClaim {
  _id: string;
  userId: string;
  target: string;
  createdAt: number;
}

/**
 * Who holds which external identity. Social identities are shown on the user (`identities`, Logto's shape);
 * their claims here, keyed by target and identity id, are what makes a link atomic and unique. Enterprise
 * identities live here whole, keyed by issuer and subject.
 */
export function createIdentitiesRepository(store: DocumentStore) {
  const claims = store.collection<SocialClaim>('user_social_identities');
  const ssoIdentities = store.collection<SsoIdentity & { _id: string }>('user_sso_identities');
  const socialKey = (target: string, identityId: string) => JSON.stringify([target, identityId]);
  const ssoKey = (issuer: string, identityId: string) => JSON.stringify([issuer, identityId]);

  return {
    async prepare() {
      await claims.createIndex({ keys: { userId: 1 } });
      await ssoIdentities.createIndex({ keys: { userId: 1 } });
      await ssoIdentities.createIndex({ keys: { ssoConnectorId: 1 } });
    },
    async socialHolder(target: string, identityId: string): Promise<string | undefined> {
      return (await claims.findOne({ _id: socialKey(target, identityId) }))?.userId;
    },
    /** Claims the identity for the user; false when another user holds it. Idempotent for the same user. */
    async claimSocial(userId: string, target: string, identityId: string): Promise<boolean> {
      const result = await claims.updateOne(
        { _id: socialKey(target, identityId) },
        { $setOnInsert: { userId, target, createdAt: Date.now() } },
        { upsert: true },
      );
      if (result.upsertedId !== null) return true;
      return (await claims.findOne({ _id: socialKey(target, identityId) }))?.userId === userId;
    },
    async releaseSocial(userId: string, target: string, identityId: string): Promise<void> {
      await claims.deleteOne({ _id: socialKey(target, identityId), userId });
    },
    async ssoHolder(issuer: string, identityId: string): Promise<SsoIdentity | undefined> {
      const doc = await ssoIdentities.findOne({ _id: ssoKey(issuer, identityId) });
      return doc ? publicShape<SsoIdentity>(doc) : undefined;
    },
    /**
     * Stores the user's enterprise identity (created, or its detail refreshed); undefined when another user
     * holds it.
     */
    async upsertSso(identity: Omit<SsoIdentity, 'id' | 'createdAt' | 'updatedAt'>): Promise<SsoIdentity | undefined> {
      const now = Date.now();
      const key = ssoKey(identity.issuer, identity.identityId);
      await ssoIdentities.updateOne(
        { _id: key },
        {
          $setOnInsert: {
            id: newId(),
            userId: identity.userId,
            issuer: identity.issuer,
            identityId: identity.identityId,
            createdAt: now,
          },
        },
        { upsert: true },
      );
      const doc = await ssoIdentities.findOneAndUpdate(
        { _id: key, userId: identity.userId },
        { $set: { detail: identity.detail, ssoConnectorId: identity.ssoConnectorId, updatedAt: now } },
        { returnDocument: 'after' },
      );
      return doc ? publicShape<SsoIdentity>(doc) : undefined;
    },
    async ssoOf(userId: string): Promise<SsoIdentity[]> {
      return (await ssoIdentities.find({ userId }, { sort: { createdAt: 1, _id: 1 } })).map((doc) =>
        publicShape<SsoIdentity>(doc),
      );
    },
    /** Forgets every identity of a deleted user. */
    async removeAllOf(userId: string): Promise<void> {
      await claims.deleteMany({ userId });
      await ssoIdentities.deleteMany({ userId });
    },
  };
}

export type IdentitiesRepository = ReturnType<typeof createIdentitiesRepository>;
