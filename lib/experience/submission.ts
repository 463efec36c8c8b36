import { errors } from '../errors.ts';
import type { ExperienceChanges } from '../users/library.ts';
import type { User } from '../users/repository.ts';
import type { ExperienceDeps } from './deps.ts';
import { emailVerifiedIn } from './identification.ts';
import { asIdentifierConflict, assertAvailable } from './profile.ts';
import { assertProfileComplete } from './rules.ts';
import { accountStateBelongsTo, connectorSignInOf, signedInByEnterpriseSso, type ExperienceRecord } from './types.ts';
import type { MfaStep } from './mfa.ts';

/**
 * `POST /api/experience/submit`: commits what the experience established to the account. Sign-in and
 * registration complete the profile (every identifier still checked against other accounts), pass the MFA
 * step, stamp the sign-in, store the second factors set up on the way and provision organizations by a
 * verified email on the account's first sign-in; forgot password stores the new password.
 */
export function createSubmission(
  deps: Pick<ExperienceDeps, 'repositories' | 'users' | 'organizationJit' | 'signInExperience'> & { mfaStep: MfaStep },
) {
  async function identifiedUser(record: ExperienceRecord): Promise<User> {
    const user = record.userId ? await deps.repositories.users.findById(record.userId) : null;
    if (!user) throw errors.experience('session.identifier_not_found', 'no account is identified yet: identify first');
    if (user.isSuspended) throw errors.experience('user.suspended', 'this account is suspended');
    return user;
  }

  async function apply(userId: string, changes: ExperienceChanges): Promise<User> {
    try {
      return await deps.users.applyExperience(userId, changes);
    } catch (error) {
      throw asIdentifierConflict(error);
    }
  }

  return {
    identifiedUser,

    async commit(record: ExperienceRecord): Promise<User> {
      const user = await identifiedUser(record);
      // Identifying another account drops what was recorded for the previous one; a record that still has some is refused whole.
      if (!accountStateBelongsTo(record, user.id)) {
        throw errors.experience(
          'session.identity_conflict',
          'this sign-in recorded proofs for another account: start again',
        );
      }
      const { username, primaryEmail, primaryPhone, passwordDigest } = record.profile;
      if (record.interactionEvent === 'ForgotPassword') {
        if (!passwordDigest) {
          throw errors.experience(
            'user.new_password_required_in_profile',
            'set the new password first (PUT /api/experience/profile/password)',
          );
        }
        return apply(user.id, { passwordDigest });
      }
      const settings = await deps.signInExperience.get();
      await assertAvailable(deps.repositories, record.profile, user.id);
      // As in Logto: an enterprise provider vouches for the account whole; a social one stands in for its password,
      // and for the missing identifiers too while socialSignIn.skipRequiredIdentifiers is on.
      const byConnector = Boolean(connectorSignInOf(record));
      const skipped =
        signedInByEnterpriseSso(record) || (byConnector && settings.socialSignIn.skipRequiredIdentifiers === true);
      if (!skipped) assertProfileComplete(settings, record.profile, user, byConnector);
      if (!signedInByEnterpriseSso(record)) await deps.mfaStep.assertSatisfied(record, user);
      const changes: ExperienceChanges = {
        ...(username !== undefined && { username }),
        ...(primaryEmail !== undefined && { primaryEmail }),
        ...(primaryPhone !== undefined && { primaryPhone }),
        ...(passwordDigest !== undefined && { passwordDigest }),
      };
      const firstSignIn = user.lastSignInAt === null;
      let updated = await apply(user.id, { ...changes, lastSignInAt: Date.now() });
      const factorAdded = await deps.mfaStep.commit(record, updated);
      if (factorAdded) updated = await identifiedUser(record);
      const email = updated.primaryEmail;
      if ((firstSignIn || primaryEmail !== undefined) && emailVerifiedIn(record, email))
        await deps.organizationJit.provisionByVerifiedEmail(updated.id, email);
      return updated;
    },
  };
}
