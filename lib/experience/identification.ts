import { errors } from '../errors.ts';
import type { User } from '../users/repository.ts';
import type { ExperienceDeps } from './deps.ts';
import { asIdentifierConflict, assertAvailable } from './profile.ts';
import { assertEventAllowed, assertForgotPasswordMethod, assertProfileComplete, assertSignInMethod } from './rules.ts';
import { identifyAs, type ExperienceRecord } from './types.ts';
import { findUserBy, verificationOf } from './verification.ts';

/** Whether this experience verified the email address with a code: only then may it join organizations by domain. */
export function emailVerifiedIn(record: ExperienceRecord, email: string | null | undefined): email is string {
  return (
    Boolean(email) &&
    record.verifications.some(
      (item) => item.type === 'EmailVerificationCode' && item.verified && item.identifier.value === email,
    )
  );
}

/**
 * `POST /api/experience/identification`: who the experience is about. Sign-in and forgot password name an
 * existing account through a verification; registration creates the account from the profile (and the
 * verification, when one is named, adds its email or phone first).
 */
export function createIdentification(
  deps: Pick<ExperienceDeps, 'repositories' | 'users' | 'organizationJit' | 'signInExperience'>,
) {
  async function existingUser(record: ExperienceRecord, verificationId: string | undefined): Promise<User> {
    if (!verificationId) throw errors.invalidInput('verificationId is required to identify an existing account');
    const verification = verificationOf(record, verificationId);
    const settings = await deps.signInExperience.get();
    assertEventAllowed(settings, record.interactionEvent);
    if (record.interactionEvent === 'SignIn') assertSignInMethod(settings, verification);
    else assertForgotPasswordMethod(settings, verification);
    if (!verification.verified)
      throw errors.experience('session.verification_failed', 'this verification has not succeeded yet');
    const user = verification.userId
      ? ((await deps.repositories.users.findById(verification.userId)) ?? undefined)
      : await findUserBy(deps.repositories, verification.identifier);
    if (!user)
      throw errors.experience('user.user_not_exist', 'no account has this identifier', {
        identifier: verification.identifier.value,
      });
    if (user.isSuspended) throw errors.experience('user.suspended', 'this account is suspended');
    if (record.userId && record.userId !== user.id) {
      throw errors.experience('session.identity_conflict', 'this sign-in already identified another account');
    }
    return user;
  }

  /** Adds the verified email or phone of a code verification to the profile of the account being registered. */
  async function addVerifiedIdentifier(record: ExperienceRecord, verificationId: string): Promise<void> {
    const verification = verificationOf(record, verificationId);
    if (verification.type === 'Password' || !verification.verified) {
      throw errors.experience(
        'session.verification_failed',
        'registration takes a verified email or phone code verification',
      );
    }
    const change =
      verification.type === 'EmailVerificationCode'
        ? { primaryEmail: verification.identifier.value }
        : { primaryPhone: verification.identifier.value };
    await assertAvailable(deps.repositories, change);
    Object.assign(record.profile, change);
  }

  return {
    async identify(record: ExperienceRecord, verificationId: string | undefined): Promise<void> {
      if (record.interactionEvent === 'Register') {
        throw errors.experience(
          'session.invalid_interaction_type',
          'registration identifies a new account: use register',
        );
      }
      identifyAs(record, (await existingUser(record, verificationId)).id);
    },

    /**
     * Creates the account; `save` keeps a verified identifier in the profile even when something else is still
     * missing (422 `user.missing_profile` names it), so the client completes the profile and calls again.
     */
    async register(
      record: ExperienceRecord,
      verificationId: string | undefined,
      save: () => Promise<void>,
    ): Promise<User> {
      if (record.interactionEvent !== 'Register') {
        throw errors.experience('session.invalid_interaction_type', 'only a registration creates an account');
      }
      if (record.userId)
        throw errors.experience('session.identity_conflict', 'this registration already created its account');
      const settings = await deps.signInExperience.get();
      assertEventAllowed(settings, 'Register');
      if (verificationId) {
        await addVerifiedIdentifier(record, verificationId);
        await save();
      }
      assertProfileComplete(settings, record.profile);
      const { username: name, primaryEmail: email, primaryPhone: phone } = record.profile;
      if (!name && !email && !phone) {
        // Sign-up settings without identifiers (Logto allows them) register through connectors only: never an empty account.
        throw errors.experience('user.missing_profile', 'a registration needs a username, an email or a phone number', {
          missingProfile: ['username', 'email', 'phone'],
        });
      }
      await assertAvailable(deps.repositories, record.profile);
      const { username, primaryEmail, primaryPhone, passwordDigest } = record.profile;
      let user: User;
      try {
        user = await deps.users.create({ username, primaryEmail, primaryPhone, passwordDigest });
      } catch (error) {
        throw asIdentifierConflict(error);
      }
      if (emailVerifiedIn(record, user.primaryEmail))
        await deps.organizationJit.provisionByVerifiedEmail(user.id, user.primaryEmail);
      identifyAs(record, user.id);
      record.userCreated = true;
      record.profile = {};
      return user;
    },
  };
}
