import type { EmitData } from '../events/operation.ts';
import { errors, unique } from '../errors.ts';
import { DuplicateKeyError } from '../ports/documents.ts';
import { newId } from '../ids.ts';
import type { MfaRepository } from './repository.ts';
import type { OrganizationsRepository } from '../organizations/repository.ts';
import type { UsersRepository } from '../users/repository.ts';
import type { User } from '../users/repository.ts';
import { backupCodeDigest, newBackupCodes, type HashedCodes } from './backup-codes.ts';
import { slotOf, type BackupCodeFactor, type MfaFactor, type TotpFactor } from './repository.ts';
import type { MfaFactorType } from './types.ts';
import type { SecretBox } from '../secret-box.ts';
import type { SignInExperience } from '../sign-in-experience/schema.ts';
import { totpEnrolment, totpStepOf } from './totp.ts';

/** A factor as the APIs show it (Logto's `mfaVerifications` item): never a secret, a digest or a key. */
export interface PublicMfaFactor {
  id: string;
  type: MfaFactorType;
  createdAt: string;
  lastUsedAt?: string;
  /** Backup codes not used yet. */
  remainCodes?: number;
  name?: string;
  agent?: string;
}

export function publicFactor(factor: MfaFactor): PublicMfaFactor {
  const shown: PublicMfaFactor = {
    id: factor.id,
    type: factor.type,
    createdAt: new Date(factor.createdAt).toISOString(),
  };
  if (factor.lastUsedAt !== null) shown.lastUsedAt = new Date(factor.lastUsedAt).toISOString();
  if (factor.type === 'BackupCode') shown.remainCodes = factor.unusedCodes.length;
  if (factor.type === 'WebAuthn') {
    if (factor.name !== null) shown.name = factor.name;
    if (factor.agent !== null) shown.agent = factor.agent;
  }
  return shown;
}

/** Whether a factor can still prove who the user is (a set of backup codes all used cannot). */
export const isUsable = (factor: MfaFactor) => factor.type !== 'BackupCode' || factor.unusedCodes.length > 0;

/** The name an authenticator app lists the account under. */
export function accountLabel(user: User): string {
  return user.primaryEmail ?? user.username ?? user.primaryPhone ?? user.name ?? user.id;
}

/** The sign-in experience's MFA settings, which decide whether a user may go without a second factor. */
type MfaPolicy = Pick<SignInExperience['mfa'], 'policy' | 'organizationRequiredMfaPolicy'>;

const sealingContext = (factor: { id: string; userId: string }) => `totp:${factor.userId}:${factor.id}`;

/** A change to the user's second factors: `updatedAt` moves on and User.Data.Updated states the user after it. */
export async function touchedUser(
  deps: { repositories: { users: UsersRepository }; emit: EmitData },
  userId: string,
): Promise<User> {
  const user = await deps.repositories.users.update(userId, {});
  if (!user) throw errors.missing('entity.not_found', 'user', userId);
  deps.emit('User.Data.Updated', { data: user });
  return user;
}

/**
 * A user's second factors: enrolment (TOTP secrets sealed at rest, backup codes hashed), verification (each
 * TOTP step and each backup code accepted once, atomically) and removal. Every enrolment and removal touches the
 * user's `updatedAt`, states User.Data.Updated with the user (never a secret) and answers the user.
 */
export function createMfaLibrary(deps: {
  repositories: { users: UsersRepository; mfaVerifications: MfaRepository; organizations: OrganizationsRepository };
  box: SecretBox;
  issuer: string;
  emit: EmitData;
}) {
  const { users, mfaVerifications: factors, organizations } = deps.repositories;

  async function mustFindUser(userId: string): Promise<User> {
    const user = await users.findById(userId);
    if (!user) throw errors.missing('entity.not_found', 'user', userId);
    return user;
  }

  /** The user after a change to their factors, `updatedAt` moved on. */
  const touched = (userId: string) => touchedUser(deps, userId);

  async function totpOf(userId: string): Promise<TotpFactor | undefined> {
    return (await factors.listOf(userId)).find((factor): factor is TotpFactor => factor.type === 'Totp');
  }

  async function backupCodesOf(userId: string): Promise<BackupCodeFactor | undefined> {
    return (await factors.listOf(userId)).find((factor): factor is BackupCodeFactor => factor.type === 'BackupCode');
  }

  return {
    factorsOf: (userId: string) => factors.listOf(userId),

    /** Whether the user belongs to an organization with `isMfaRequired`. */
    async requiredByOrganization(userId: string): Promise<boolean> {
      const memberships = await organizations.users.where({ userId });
      if (memberships.length === 0) return false;
      const found = await organizations.findByIds(memberships.map((link) => link.organizationId!));
      return found.some((organization) => organization.isMfaRequired);
    },

    /** Whether the user declined to enrol when last asked (Logto's `mfaSkipped`). */
    async skipped(userId: string): Promise<boolean> {
      return (await users.findWithSecrets({ id: userId }))?.secrets.mfaSkipped ?? false;
    },
    async rememberSkipped(userId: string): Promise<void> {
      await users.update(userId, { mfaSkipped: true });
    },

    async list(userId: string): Promise<PublicMfaFactor[]> {
      await mustFindUser(userId);
      return (await factors.listOf(userId)).map(publicFactor);
    },

    /** The `otpauth://` URI and QR code of a secret for this user, labelled as apps show it. */
    async enrolmentOf(user: User, secret: string) {
      return totpEnrolment(secret, accountLabel(user), new URL(deps.issuer).host);
    },

    /** Seals a secret for a place other than a factor (an experience record), bound to `context`. */
    seal: (secret: string, context: string) => deps.box.seal(secret, context),
    open: (sealed: string, context: string) => deps.box.open(sealed, context),

    /**
     * Stores a TOTP factor. `acceptedStep` is the step of the code that proved the user's app holds the secret:
     * that code cannot be used again to sign in. 422 `user.totp_already_in_use` when the user has one.
     */
    async addTotp(userId: string, secret: string, acceptedStep = 0): Promise<{ factor: TotpFactor; user: User }> {
      await mustFindUser(userId);
      if (await totpOf(userId))
        throw errors.experience('user.totp_already_in_use', 'this account already has an authenticator app');
      const id = newId();
      const factor: TotpFactor = {
        id,
        userId,
        type: 'Totp',
        slot: slotOf(userId, 'Totp'),
        createdAt: Date.now(),
        lastUsedAt: null,
        sealedSecret: deps.box.seal(secret, sealingContext({ id, userId })),
        lastUsedStep: acceptedStep,
      };
      try {
        await factors.insert(factor);
      } catch (error) {
        // Another request enrolled one meanwhile: the unique slot keeps it to one.
        if (error instanceof DuplicateKeyError)
          throw errors.experience('user.totp_already_in_use', 'this account already has an authenticator app');
        throw error;
      }
      return { factor, user: await touched(userId) };
    },

    /**
     * Stores a set of backup codes made with `newBackupCodes`, replacing the user's previous set (whose unused
     * codes stop working). `replace: false` refuses with 422 `user.backup_code_already_in_use` while the
     * previous set has unused codes. Backup codes are never a user's only factor (422
     * `session.mfa.backup_code_can_not_be_alone`).
     */
    async addBackupCodes(
      userId: string,
      hashed: HashedCodes,
      options: { replace: boolean; otherFactorPending?: boolean },
    ) {
      await mustFindUser(userId);
      const existing = await factors.listOf(userId);
      const previous = existing.find((factor): factor is BackupCodeFactor => factor.type === 'BackupCode');
      if (previous && previous.unusedCodes.length > 0 && !options.replace) {
        throw errors.experience('user.backup_code_already_in_use', 'this account still has unused backup codes');
      }
      if (!options.otherFactorPending && !existing.some((factor) => factor.type !== 'BackupCode')) {
        throw errors.experience(
          'session.mfa.backup_code_can_not_be_alone',
          'backup codes only back up another factor: add one first',
        );
      }
      if (previous) await factors.delete(userId, previous.id);
      const factor: BackupCodeFactor = {
        id: newId(),
        userId,
        type: 'BackupCode',
        slot: slotOf(userId, 'BackupCode'),
        createdAt: Date.now(),
        lastUsedAt: null,
        salt: hashed.salt,
        unusedCodes: hashed.digests,
        usedCodes: [],
      };
      await unique('mfa verification', 'slot', () => factors.insert(factor));
      return { factor, user: await touched(userId) };
    },

    /** A new set of backup codes for the user, stored at once (management and Account API). */
    async generateBackupCodes(userId: string, options: { replace: boolean }) {
      const { codes, hashed } = newBackupCodes();
      const { factor, user } = await this.addBackupCodes(userId, hashed, options);
      return { codes, factor, user };
    },

    /** Removes one factor; 404 when the user has none with this id. Answers the factor and the user. */
    async remove(userId: string, id: string): Promise<{ factor: MfaFactor; user: User }> {
      await mustFindUser(userId);
      const factor = await factors.delete(userId, id);
      if (!factor) throw errors.notFound('mfa verification', id);
      return { factor, user: await touched(userId) };
    },

    /**
     * Removes one factor at the user's own request (Account API). Where the settings make a second factor
     * mandatory for this user (for everyone, or for members of an organization requiring it), the user's last
     * authenticator app or passkey stays: 422 `session.mfa.mfa_policy_not_user_controlled`, so that nobody locks
     * themselves (or, with a stolen session, the owner) out of the second factor. Checked again after the removal,
     * once the user's document is written: that write holds the user's lock until the transaction ends, so removals
     * racing for the last factors check one after another against what the others committed (under read-committed
     * isolation, checks that ran side by side would each still see the others' factors); one that would leave none
     * puts its factor back.
     */
    async removeOwn(userId: string, id: string, policy: MfaPolicy): Promise<{ factor: MfaFactor; user: User }> {
      await mustFindUser(userId);
      const mandatory =
        policy.policy === 'Mandatory' ||
        (policy.organizationRequiredMfaPolicy === 'Mandatory' && (await this.requiredByOrganization(userId)));
      const refused = () =>
        errors.experience(
          'session.mfa.mfa_policy_not_user_controlled',
          'a second factor is mandatory here: the last authenticator app or passkey cannot be removed; add another first',
        );
      const proving = async () => (await factors.listOf(userId)).filter((factor) => factor.type !== 'BackupCode');
      if (mandatory) {
        const held = await proving();
        if (held.length === 1 && held[0]!.id === id) throw refused();
      }
      const factor = await factors.delete(userId, id);
      if (!factor) throw errors.notFound('mfa verification', id);
      const user = await touched(userId);
      if (mandatory && factor.type !== 'BackupCode' && (await proving()).length === 0) {
        await factors.insert(factor).catch((error: unknown) => {
          // The slot was taken again meanwhile (a new authenticator app): the user has a factor, which is the point.
          if (!(error instanceof DuplicateKeyError)) throw error;
        });
        throw refused();
      }
      return { factor, user };
    },

    /**
     * Checks a code of the user's authenticator app: true once per time step, and never for a step at or
     * before one already accepted (a replayed or an older code), however many requests race.
     */
    async verifyTotp(userId: string, code: string): Promise<boolean> {
      const factor = await totpOf(userId);
      if (!factor) return false;
      const secret = deps.box.open(factor.sealedSecret, sealingContext(factor));
      if (secret === undefined) return false;
      const step = totpStepOf(secret, code);
      if (step === undefined || step <= factor.lastUsedStep) return false;
      return factors.advanceTotpStep(factor.id, step, Date.now());
    },

    /** Spends one of the user's backup codes: true for exactly one of any number of concurrent uses of a code. */
    async consumeBackupCode(userId: string, code: string): Promise<boolean> {
      const factor = await backupCodesOf(userId);
      if (!factor) return false;
      return factors.consumeBackupCode(factor.id, backupCodeDigest(factor.salt, code), Date.now());
    },
  };
}

export type MfaLibrary = ReturnType<typeof createMfaLibrary>;
