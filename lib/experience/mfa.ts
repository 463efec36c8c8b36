import { DomainError, errors } from '../errors.ts';
import { newId } from '../ids.ts';
import { newBackupCodes } from '../mfa/backup-codes.ts';
import { isUsable, type MfaLibrary } from '../mfa/library.ts';
import type { MfaFactorType } from '../mfa/types.ts';
import { newTotpSecret, totpStepOf } from '../mfa/totp.ts';
import { lockedError, type Identifier, type Lockout } from '../sign-in/lockout.ts';
import type { SignInExperience } from '../sign-in-experience/schema.ts';
import type { User } from '../users/repository.ts';
import type { ExperienceDeps } from './deps.ts';
import type { ExperienceRecord, MfaVerificationRecord } from './types.ts';
import type { AuthenticationPayload, RegistrationPayload } from '../mfa/webauthn-payloads.ts';
import type { HashedCodes } from '../mfa/backup-codes.ts';
import type { NewCredential } from '../mfa/webauthn.ts';

type BindableType = MfaVerificationRecord['type'];

/** The identifier an MFA attempt is counted under: the account's own (its budget is the account's). */
function identifierOf(user: User): Identifier {
  if (user.username) return { type: 'username', value: user.username };
  if (user.primaryEmail) return { type: 'email', value: user.primaryEmail };
  if (user.primaryPhone) return { type: 'phone', value: user.primaryPhone };
  return { type: 'username', value: user.id };
}

/**
 * The lockout budget of an account's second factors, apart from its password's: a correct password starts the
 * password count over, and must not give whoever knows it a fresh set of guesses at six digits each time.
 */
const secondFactorBudget = (user: User) => `${user.id}:mfa`;

/** What a new factor in an experience record is sealed to: its account and its verification (TOTP keeps its own form). */
const pendingContext = (user: User, verificationId: string, type: BindableType = 'Totp') =>
  type === 'Totp' ? `experience:${user.id}:${verificationId}` : `experience:${type}:${user.id}:${verificationId}`;

/** A passkey whose registration verified, as sealed in an experience record. */
type PendingCredential = NewCredential & { agent?: string };

/** Factor types that prove the user at sign-in, most convenient first (backup codes last, as Logto sorts them). */
function availableTypes(factors: Awaited<ReturnType<MfaLibrary['factorsOf']>>): MfaFactorType[] {
  const order: MfaFactorType[] = ['Totp', 'WebAuthn', 'BackupCode'];
  const held = new Set(factors.filter(isUsable).map((factor) => factor.type));
  return order.filter((type) => held.has(type));
}

/**
 * The second-factor step of the Experience API (Logto's paths and codes). After identification, an account with
 * a factor proves one (TOTP code or backup code) before submit; new factors are set up here (a TOTP secret shown
 * once and confirmed with a code from the app, backup codes shown once) and stored at submit; and the sign-in
 * experience's policy decides whether an account without one must enrol. Wrong codes count toward the lockout
 * of the account, like wrong passwords.
 */
export function createMfaStep(
  deps: Pick<ExperienceDeps, 'signInExperience' | 'passkeys'> & { mfa: MfaLibrary; lockout: Lockout },
) {
  const { mfa, passkeys } = deps;

  /** The verifications made for this account; one made for another account is none of its business. */
  function verificationsOf(record: ExperienceRecord, user: User): MfaVerificationRecord[] {
    return (record.mfaVerifications ?? []).filter((item) => item.userId === user.id);
  }

  /** A new verification replaces one of the same type, as in Logto. */
  function put(record: ExperienceRecord, verification: MfaVerificationRecord): MfaVerificationRecord {
    record.mfaVerifications = [
      ...(record.mfaVerifications ?? []).filter(
        (item) => item.type !== verification.type && item.userId === verification.userId,
      ),
      verification,
    ];
    return verification;
  }

  function find(record: ExperienceRecord, user: User, id: string, type: BindableType): MfaVerificationRecord {
    const found = verificationsOf(record, user).find((item) => item.id === id && item.type === type);
    if (!found)
      throw errors.experience(
        'session.verification_session_not_found',
        `no ${type} verification ${id.slice(0, 64)} in this sign-in`,
      );
    return found;
  }

  /** Seals what a new factor carries to its account and verification. */
  const sealFor = (user: User, verification: Pick<MfaVerificationRecord, 'id' | 'type'>, value: unknown) =>
    mfa.seal(JSON.stringify(value), pendingContext(user, verification.id, verification.type));

  /** What a verification's new factor carries, opened for this account only; undefined when it has none or it is another's. */
  function opened<T>(user: User, verification: MfaVerificationRecord, sealed: string | undefined): T | undefined {
    const text =
      sealed === undefined ? undefined : mfa.open(sealed, pendingContext(user, verification.id, verification.type));
    return text === undefined ? undefined : (JSON.parse(text) as T);
  }

  /** The bindings of new factors made for this account. */
  const bindingsOf = (record: ExperienceRecord, user: User) =>
    record.mfaBind?.userId === user.id ? record.mfaBind : undefined;

  async function assertFactorEnabled(type: BindableType): Promise<SignInExperience> {
    const settings = await deps.signInExperience.get();
    if (!settings.mfa.factors.includes(type)) {
      throw errors.experience(
        'session.mfa.mfa_factor_not_enabled',
        `the sign-in experience does not offer ${type} as a second factor`,
      );
    }
    return settings;
  }

  /** Runs a check of a code under the lockout policy, counted for the account's second factors; a wrong code throws `wrong`. */
  async function counted(user: User, check: () => Promise<boolean>, wrong: () => Error): Promise<void> {
    const outcome = await deps.lockout.verify(identifierOf(user), secondFactorBudget(user), check);
    if (outcome === 'locked') throw lockedError('account');
    if (outcome === 'failed') throw wrong();
  }

  const invalidTotp = () =>
    errors.experience('session.mfa.invalid_totp_code', 'the code from the authenticator app is not right');
  const invalidBackupCode = () =>
    errors.experience('session.mfa.invalid_backup_code', 'the backup code is not right or was used already');

  return {
    /** `POST /verification/totp/secret`: a new secret for this account, shown once with its URI and QR code. */
    async newTotpSecret(record: ExperienceRecord, user: User) {
      await assertFactorEnabled('Totp');
      if ((await mfa.factorsOf(user.id)).some((factor) => factor.type === 'Totp')) {
        throw errors.experience('user.totp_already_in_use', 'this account already has an authenticator app');
      }
      const id = newId();
      const secret = newTotpSecret();
      put(record, {
        id,
        type: 'Totp',
        userId: user.id,
        verified: false,
        newSecret: mfa.seal(secret, pendingContext(user, id)),
      });
      const { keyUri, secretQrCode } = await mfa.enrolmentOf(user, secret);
      return { verificationId: id, secret, secretQrCode, keyUri };
    },

    /**
     * `POST /verification/totp/verify`: with `verificationId`, confirms a new secret with a code from the app;
     * without, checks a code of the account's own authenticator (each time step accepted once).
     */
    async verifyTotp(record: ExperienceRecord, user: User, code: string, verificationId?: string): Promise<string> {
      if (verificationId) {
        const pending = find(record, user, verificationId, 'Totp');
        const secret =
          pending.newSecret === undefined ? undefined : mfa.open(pending.newSecret, pendingContext(user, pending.id));
        if (secret === undefined)
          throw errors.experience(
            'session.mfa.pending_info_not_found',
            'this verification sets up no new authenticator',
          );
        let step: number | undefined;
        await counted(
          user,
          async () => {
            step = totpStepOf(secret, code);
            return step !== undefined;
          },
          invalidTotp,
        );
        pending.verified = true;
        pending.acceptedStep = step;
        return pending.id;
      }
      await counted(user, () => mfa.verifyTotp(user.id, code), invalidTotp);
      return put(record, { id: newId(), type: 'Totp', userId: user.id, verified: true }).id;
    },

    /** `POST /verification/backup-code/generate`: ten new codes, shown once, stored at submit once bound. */
    async newBackupCodes(record: ExperienceRecord, user: User) {
      await assertFactorEnabled('BackupCode');
      const { codes, hashed } = newBackupCodes();
      const id = newId();
      put(record, {
        id,
        type: 'BackupCode',
        userId: user.id,
        verified: true,
        newCodes: sealFor(user, { id, type: 'BackupCode' }, hashed),
      });
      return { verificationId: id, codes };
    },

    /** `POST /verification/backup-code/verify`: spends one of the account's backup codes. */
    async verifyBackupCode(record: ExperienceRecord, user: User, code: string): Promise<string> {
      await counted(user, () => mfa.consumeBackupCode(user.id, code), invalidBackupCode);
      return put(record, { id: newId(), type: 'BackupCode', userId: user.id, verified: true }).id;
    },

    /** `POST /verification/web-authn/registration`: options to create a passkey for this account. */
    async webAuthnRegistration(record: ExperienceRecord, user: User) {
      await assertFactorEnabled('WebAuthn');
      const id = newId();
      const registrationOptions = await passkeys.registrationOptions(id, user);
      put(record, { id, type: 'WebAuthn', userId: user.id, verified: false });
      return { verificationId: id, registrationOptions };
    },

    /** `POST /verification/web-authn/registration/verify`: the browser's new passkey, stored at submit once bound. */
    async verifyWebAuthnRegistration(
      record: ExperienceRecord,
      user: User,
      verificationId: string,
      payload: RegistrationPayload,
      agent?: string,
    ) {
      const pending = find(record, user, verificationId, 'WebAuthn');
      const credential = await passkeys.verifyRegistration(pending.id, user.id, { ...payload, type: 'public-key' });
      pending.verified = true;
      pending.newCredential = sealFor(user, pending, {
        ...credential,
        ...(agent && { agent }),
      } satisfies PendingCredential);
      return pending.id;
    },

    /** `POST /verification/web-authn/authentication`: a challenge for one of the account's passkeys. */
    async webAuthnAuthentication(record: ExperienceRecord, user: User) {
      const id = newId();
      const authenticationOptions = await passkeys.authenticationOptions(id, user.id);
      put(record, { id, type: 'WebAuthn', userId: user.id, verified: false });
      return { verificationId: id, authenticationOptions };
    },

    /**
     * `POST /verification/web-authn/authentication/verify`: the browser's assertion, checked once against its
     * challenge; a failed one counts toward the account's lockout like a wrong code.
     */
    async verifyWebAuthnAuthentication(
      record: ExperienceRecord,
      user: User,
      verificationId: string,
      payload: AuthenticationPayload,
    ) {
      const pending = find(record, user, verificationId, 'WebAuthn');
      if (pending.newCredential)
        throw errors.experience('session.verification_session_not_found', 'this verification registers a passkey');
      // Before the lockout: an answer to a challenge that is gone (a replay, a double submit) checks no secret.
      const challenge = await passkeys.takeAuthenticationChallenge(pending.id, user.id);
      let failure: unknown;
      const outcome = await deps.lockout.verify(identifierOf(user), secondFactorBudget(user), async () => {
        try {
          await passkeys.verifyAuthentication(user.id, challenge, { ...payload, type: 'public-key' });
          return true;
        } catch (error) {
          if (!(error instanceof DomainError)) throw error;
          failure = error;
          return false;
        }
      });
      if (outcome === 'locked') throw lockedError('account');
      if (outcome === 'failed') throw failure;
      pending.verified = true;
      return pending.id;
    },

    /** `POST /profile/mfa`: a confirmed new factor is stored at submit. */
    async bind(record: ExperienceRecord, user: User, type: BindableType, verificationId: string): Promise<void> {
      const verification = find(record, user, verificationId, type);
      await assertFactorEnabled(type);
      if (type === 'Totp') {
        if (!verification.newSecret)
          throw errors.experience(
            'session.mfa.pending_info_not_found',
            'this verification sets up no new authenticator',
          );
        if (!verification.verified)
          throw errors.experience('session.verification_failed', 'confirm the new authenticator with a code first');
        if ((await mfa.factorsOf(user.id)).some((factor) => factor.type === 'Totp')) {
          throw errors.experience('user.totp_already_in_use', 'this account already has an authenticator app');
        }
      } else if (type === 'WebAuthn') {
        if (!opened(user, verification, verification.newCredential)) {
          throw errors.experience('session.mfa.pending_info_not_found', 'this verification registered no new passkey');
        }
      } else {
        if (!opened(user, verification, verification.newCodes)) {
          throw errors.experience('session.mfa.pending_info_not_found', 'this verification made no new backup codes');
        }
        const bound = bindingsOf(record, user);
        const others =
          (await mfa.factorsOf(user.id)).some((factor) => factor.type !== 'BackupCode') ||
          bound?.Totp ||
          bound?.WebAuthn;
        if (!others)
          throw errors.experience(
            'session.mfa.backup_code_can_not_be_alone',
            'backup codes only back up another factor: add one first',
          );
      }
      record.mfaBind = { ...bindingsOf(record, user), userId: user.id, [type]: verificationId };
    },

    /** What the sign-in pages show: the factors the account can prove, and whether enrolment may be skipped. */
    async status(user: User): Promise<{ held: MfaFactorType[]; skippable: boolean }> {
      const settings = await deps.signInExperience.get();
      const skippable = settings.mfa.policy !== 'Mandatory' && !(await requiredByOrganization(settings, user));
      return { held: availableTypes(await mfa.factorsOf(user.id)), skippable };
    },

    /** `POST /profile/mfa/mfa-skipped`: not now, where the policy lets the user choose. */
    async skip(record: ExperienceRecord, user: User): Promise<void> {
      const settings = await deps.signInExperience.get();
      if (settings.mfa.policy === 'Mandatory' || (await requiredByOrganization(settings, user))) {
        throw errors.experience(
          'session.mfa.mfa_policy_not_user_controlled',
          'a second factor is required here: it cannot be skipped',
        );
      }
      record.mfaSkipped = { userId: user.id };
    },

    /**
     * Before submit: 403 `session.mfa.require_mfa_verification` when the account has a factor and none was proved
     * in this sign-in; 422 `user.missing_mfa` when the policy asks for enrolment (`skippable` when the user may
     * decline); 422 `session.mfa.backup_code_required` when backup codes are offered and none are held.
     */
    async assertSatisfied(record: ExperienceRecord, user: User): Promise<void> {
      const held = await mfa.factorsOf(user.id);
      const usable = availableTypes(held);
      if (record.interactionEvent === 'SignIn' && usable.length > 0) {
        const proved = verificationsOf(record, user).some(
          (item) => item.verified && !item.newSecret && !item.newCodes && !item.newCredential,
        );
        if (!proved) {
          throw errors.experience(
            'session.mfa.require_mfa_verification',
            'verify a second factor of this account first',
            {
              availableFactors: usable,
            },
          );
        }
      }
      const settings = await deps.signInExperience.get();
      const { factors, policy } = settings.mfa;
      if (factors.length === 0) return;
      const byOrganization = await requiredByOrganization(settings, user);
      if (policy === 'NoPrompt' && !byOrganization) return;
      const skipped = record.mfaSkipped?.userId === user.id || (await mfa.skipped(user.id));
      if (policy !== 'Mandatory' && skipped && !byOrganization) return;
      if (record.interactionEvent === 'Register' && policy === 'PromptOnlyAtSignIn') return;
      const { userId: _bound, ...bound } = bindingsOf(record, user) ?? {};
      const linked = new Set<MfaFactorType>([...usable, ...(Object.keys(bound) as BindableType[])]);
      const enrolable = factors.filter((type) => type !== 'BackupCode');
      if (!enrolable.some((type) => linked.has(type))) {
        throw errors.experience('user.missing_mfa', 'this account must add a second factor', {
          availableFactors: enrolable,
          ...(policy !== 'Mandatory' && !byOrganization && { skippable: true }),
        });
      }
      if (factors.includes('BackupCode') && !linked.has('BackupCode')) {
        throw errors.experience(
          'session.mfa.backup_code_required',
          'keep a set of backup codes: generate and bind them',
        );
      }
    },

    /** At submit: stores the bound factors and the user's choice to skip; true when a factor was added. */
    async commit(record: ExperienceRecord, user: User): Promise<boolean> {
      const bind: Partial<Record<BindableType, string>> = bindingsOf(record, user) ?? {};
      let added = false;
      if (bind.Totp) {
        const verification = find(record, user, bind.Totp, 'Totp');
        const secret =
          verification.newSecret && mfa.open(verification.newSecret, pendingContext(user, verification.id));
        if (!secret)
          throw errors.experience('session.mfa.pending_info_not_found', 'the new authenticator could not be read back');
        await mfa.addTotp(user.id, secret, verification.acceptedStep ?? 0);
        added = true;
      }
      if (bind.WebAuthn) {
        const verification = find(record, user, bind.WebAuthn, 'WebAuthn');
        const pending = opened<PendingCredential>(user, verification, verification.newCredential);
        if (!pending) throw errors.experience('session.mfa.pending_info_not_found', 'no new passkey to store');
        const { agent, ...credential } = pending;
        await passkeys.add(user.id, credential, { agent });
        added = true;
      }
      if (bind.BackupCode) {
        const verification = find(record, user, bind.BackupCode, 'BackupCode');
        const newCodes = opened<HashedCodes>(user, verification, verification.newCodes);
        if (!newCodes) throw errors.experience('session.mfa.pending_info_not_found', 'no new backup codes to store');
        await mfa.addBackupCodes(user.id, newCodes, { replace: true });
        added = true;
      }
      if (record.mfaSkipped?.userId === user.id && !added) await mfa.rememberSkipped(user.id);
      return added;
    },
  };

  async function requiredByOrganization(settings: SignInExperience, user: User): Promise<boolean> {
    return settings.mfa.organizationRequiredMfaPolicy === 'Mandatory' && mfa.requiredByOrganization(user.id);
  }
}

export type MfaStep = ReturnType<typeof createMfaStep>;
