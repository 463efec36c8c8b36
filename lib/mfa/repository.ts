import type { DocumentStore } from '../ports/documents.ts';

/**
 * A user's second factors, one document each (Logto keeps them in `users.mfaVerifications`; one document per
 * factor lets every single-use check be one atomic conditional update on both stores).
 *
 * Where a new factor type plugs in: add its record below (WebAuthn is already laid out for passkeys), then a
 * verifier in `library.ts` (the way `verifyTotp` and `consumeBackupCode` are written: one conditional update
 * that only one request can win) and its Experience API verification routes; `publicFactor` and the sign-in
 * step (`lib/experience/mfa.ts`) take any type listed in `MFA_FACTOR_TYPES`.
 */
interface FactorBase {
  id: string;
  userId: string;
  createdAt: number;
  lastUsedAt: number | null;
}

/** One TOTP authenticator per user (`slot` is unique): the secret sealed at rest, and the last time step accepted. */
export interface TotpFactor extends FactorBase {
  type: 'Totp';
  slot: string;
  sealedSecret: string;
  /** Codes of this step or earlier are refused: each code is accepted once, and never an older one after it. */
  lastUsedStep: number;
}

/** One set of backup codes per user: SHA-256 digests with the set's salt; a used code moves to `usedCodes`. */
export interface BackupCodeFactor extends FactorBase {
  type: 'BackupCode';
  slot: string;
  salt: string;
  unusedCodes: string[];
  usedCodes: Array<{ digest: string; usedAt: number }>;
}

/** A WebAuthn credential (several per user): what a verifier needs to check an assertion and refuse a cloned one. */
export interface WebAuthnFactor extends FactorBase {
  type: 'WebAuthn';
  credentialId: string;
  /** The COSE public key, base64url. */
  publicKey: string;
  /** The signature counter last seen; an assertion must carry a greater one (when the authenticator counts). */
  counter: number;
  transports: string[];
  name: string | null;
  /** The user agent the credential was registered from. */
  agent: string | null;
}

export type MfaFactor = TotpFactor | BackupCodeFactor | WebAuthnFactor;

/** The unique slot of the factor types a user holds at most one of. */
export const slotOf = (userId: string, type: 'Totp' | 'BackupCode') => `${userId}:${type}`;

export function createMfaRepository(store: DocumentStore) {
  const factors = store.collection<MfaFactor & { _id: string }>('mfa_verifications');
  const strip = (doc: (MfaFactor & { _id: string }) | null): MfaFactor | null => {
    if (!doc) return null;
    const { _id, ...factor } = doc;
    return factor as MfaFactor;
  };

  return {
    async prepare() {
      await factors.createIndex({ keys: { userId: 1, createdAt: 1 } });
      await factors.createIndex({ keys: { slot: 1 }, unique: true, sparse: true });
      await factors.createIndex({ keys: { credentialId: 1 }, unique: true, sparse: true });
    },
    async listOf(userId: string): Promise<MfaFactor[]> {
      const docs = await factors.find({ userId }, { sort: { createdAt: 1, _id: 1 } });
      return docs.map((doc) => strip(doc)!);
    },
    async insert(factor: MfaFactor): Promise<void> {
      await factors.insertOne({ ...factor, _id: factor.id });
    },
    async delete(userId: string, id: string): Promise<MfaFactor | null> {
      return strip(await factors.findOneAndDelete({ _id: id, userId }));
    },
    async deleteAllOf(userId: string): Promise<void> {
      await factors.deleteMany({ userId });
    },
    /** Moves the TOTP factor to `step` when no later-or-equal step was accepted: of concurrent callers, one wins. */
    async advanceTotpStep(id: string, step: number, at: number): Promise<boolean> {
      const updated = await factors.findOneAndUpdate(
        { _id: id, type: 'Totp', lastUsedStep: { $lt: step } },
        { $set: { lastUsedStep: step, lastUsedAt: at } },
      );
      return updated !== null;
    },
    async findByCredentialId(credentialId: string): Promise<MfaFactor | null> {
      return strip(await factors.findOne({ credentialId }));
    },
    /**
     * Records a use of a passkey whose authenticator reported `next` after `seen` was stored: a counting
     * authenticator's counter must move forward, and of concurrent uses of one value only one does. An
     * authenticator that does not count (0 both times) only gets `lastUsedAt`.
     */
    async advanceWebAuthnCounter(id: string, seen: number, next: number, at: number): Promise<boolean> {
      if (seen === 0 && next === 0) {
        return (
          (await factors.findOneAndUpdate({ _id: id, type: 'WebAuthn', counter: 0 }, { $set: { lastUsedAt: at } })) !==
          null
        );
      }
      if (next <= seen) return false;
      const updated = await factors.findOneAndUpdate(
        { _id: id, type: 'WebAuthn', counter: { $lt: next } },
        { $set: { counter: next, lastUsedAt: at } },
      );
      return updated !== null;
    },
    async renameWebAuthn(userId: string, id: string, name: string): Promise<MfaFactor | null> {
      return strip(
        await factors.findOneAndUpdate(
          { _id: id, userId, type: 'WebAuthn' },
          { $set: { name } },
          { returnDocument: 'after' },
        ),
      );
    },
    /** Spends one backup code: of concurrent callers presenting it, exactly one finds it unused. */
    async consumeBackupCode(id: string, digest: string, at: number): Promise<boolean> {
      const updated = await factors.findOneAndUpdate(
        { _id: id, type: 'BackupCode', unusedCodes: digest },
        { $pull: { unusedCodes: digest }, $push: { usedCodes: { digest, usedAt: at } }, $set: { lastUsedAt: at } },
      );
      return updated !== null;
    },
  };
}

export type MfaRepository = ReturnType<typeof createMfaRepository>;
