import { DomainError, errors } from '../errors.ts';
import { newId } from '../ids.ts';
import type { UsersRepository } from '../users/repository.ts';
import type { MessageEventContext, MessageSenders, Recipient } from '../messaging/index.ts';
import { lockedError, type Lockout } from '../sign-in/lockout.ts';
import { createPasswordVerification, userLookup } from '../sign-in/password.ts';
import type { User } from '../users/repository.ts';
import type { ExperienceDeps } from './deps.ts';
import type {
  ExperienceIdentifier,
  ExperienceRecord,
  InteractionEvent,
  VerificationRecord,
  VerificationType,
} from './types.ts';

/** Email addresses are stored and compared lower-cased. */
export function normalized<T extends ExperienceIdentifier>(identifier: T): T {
  return identifier.type === 'email' ? { ...identifier, value: identifier.value.trim().toLowerCase() } : identifier;
}

export async function findUserBy(
  repositories: { users: UsersRepository },
  identifier: ExperienceIdentifier,
): Promise<User | undefined> {
  return (await repositories.users.findWithSecrets(userLookup(identifier)))?.user;
}

/** A record with the same type is replaced: its id no longer verifies anything, as in Logto. */
export function putVerification(record: ExperienceRecord, verification: VerificationRecord): void {
  record.verifications = [...record.verifications.filter((item) => item.type !== verification.type), verification];
}

/** The record `verificationId` names in this experience, of one of `types`; 404 otherwise, foreign ids included. */
export function verificationOf(
  record: ExperienceRecord,
  verificationId: string,
  types?: readonly VerificationType[],
): VerificationRecord {
  const found = record.verifications.find((item) => item.id === verificationId);
  if (!found || (types && !types.includes(found.type))) {
    throw errors.experience(
      'session.verification_session_not_found',
      `no verification ${verificationId.slice(0, 64)} in this sign-in`,
    );
  }
  return found;
}

const codeType = (identifier: ExperienceIdentifier): VerificationType =>
  identifier.type === 'phone' ? 'PhoneVerificationCode' : 'EmailVerificationCode';

/** What a wrong guess of a code looks like; anything else (the store down, a provider failure) is not one. */
const CODE_FAILURES: ReadonlySet<string> = new Set([
  'verification_code.code_mismatch',
  'verification_code.expired',
  'verification_code.not_found',
  'verification_code.exceed_max_try',
]);

/**
 * Password and verification-code verifications of the Experience API. Every check of a secret runs under the
 * lockout policy, counted per account (or per identifier that names none) whatever the secret's kind.
 */
export function createVerifications(deps: Pick<ExperienceDeps, 'repositories' | 'messaging'> & { lockout: Lockout }) {
  const passwords = createPasswordVerification(deps);

  return {
    async password(
      record: ExperienceRecord,
      identifier: ExperienceIdentifier,
      password: string,
    ): Promise<VerificationRecord> {
      const typed = normalized(identifier);
      const result = await passwords(typed, password);
      if (!result.ok) {
        if (result.reason === 'locked') throw lockedError('identifier');
        if (result.reason === 'suspended') throw errors.experience('user.suspended', 'this account is suspended');
        throw errors.experience('session.invalid_credentials', 'the identifier or the password is not right');
      }
      const verification: VerificationRecord = {
        id: newId(),
        type: 'Password',
        identifier: typed,
        verified: true,
        userId: result.user.id,
      };
      putVerification(record, verification);
      return verification;
    },

    /**
     * Sends a code and records the verification. A forgotten password of an address no account has, or a
     * sign-in code to one while registration is off (not an address an identified account adds to its profile),
     * is recorded but not delivered (nothing could come of it but spam and a way to learn which addresses have accounts); it still answers the same, in the same time
     * (every code goes out after the answer), and can never be verified. The client's address and the
     * interaction each spend one message of their budgets.
     */
    async sendCode(
      record: ExperienceRecord,
      identifier: Recipient,
      event: InteractionEvent,
      options: {
        registrationOff: boolean;
        applicationName?: string;
        context: MessageEventContext;
        senders: MessageSenders;
      },
    ): Promise<VerificationRecord> {
      const to = normalized(identifier);
      const silent =
        (event === 'ForgotPassword' || (event === 'SignIn' && options.registrationOff && !record.userId)) &&
        !(await findUserBy(deps.repositories, to));
      await deps.messaging.sendCode({
        purpose: event,
        to,
        applicationName: options.applicationName,
        context: options.context,
        deliver: !silent,
        senders: options.senders,
        inBackground: true,
      });
      const verification: VerificationRecord = {
        id: newId(),
        type: codeType(to),
        identifier: to,
        verified: false,
        purpose: event,
        ...(silent ? { undelivered: true } : {}),
      };
      putVerification(record, verification);
      return verification;
    },

    async verifyCode(
      record: ExperienceRecord,
      identifier: Recipient,
      verificationId: string,
      code: string,
    ): Promise<VerificationRecord> {
      const to = normalized(identifier);
      const verification = verificationOf(record, verificationId, [codeType(to)]);
      if (verification.identifier.value !== to.value) {
        throw errors.experience(
          to.type === 'email' ? 'verification_code.email_mismatch' : 'verification_code.phone_mismatch',
          `the code of this verification was not sent to this ${to.type === 'email' ? 'email address' : 'phone number'}`,
        );
      }
      const account = await findUserBy(deps.repositories, to);
      let failure: unknown;
      const outcome = await deps.lockout.verify(to, account?.id, async () => {
        if (verification.undelivered) {
          failure = errors.experience('verification_code.code_mismatch', 'the code is not right');
          return false;
        }
        try {
          await deps.messaging.verifyCode({ purpose: verification.purpose ?? record.interactionEvent, to, code });
          return true;
        } catch (error) {
          if (!(error instanceof DomainError) || !CODE_FAILURES.has(error.code)) throw error;
          failure = error;
          return false;
        }
      });
      if (outcome === 'locked') throw lockedError('identifier');
      if (outcome === 'failed') throw failure;
      verification.verified = true;
      return verification;
    },
  };
}
