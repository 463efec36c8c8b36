import { DomainError, errors } from '../errors.ts';
import type { UsersRepository } from '../users/repository.ts';
import { hashPassword, verifyPassword } from '../users/passwords.ts';
import type { User } from '../users/repository.ts';
import type { ExperienceDeps } from './deps.ts';
import { findUserBy, verificationOf } from './verification.ts';
import type { ExperienceProfile, ExperienceRecord, IdentifierType } from './types.ts';

/** `POST /api/experience/profile`: a username or password by value, an email or phone by a verified code. */
export type ProfileInput =
  | { type: 'username'; value: string }
  | { type: 'password'; value: string }
  | { type: 'email' | 'phone'; verificationId: string };

const FIELD = { username: 'username', email: 'primaryEmail', phone: 'primaryPhone' } as const;

const IN_USE = {
  username: 'user.username_already_in_use',
  email: 'user.email_already_in_use',
  phone: 'user.phone_already_in_use',
} as const;

const ON_ACCOUNT = {
  username: 'user.username_exists_in_profile',
  email: 'user.email_exists_in_profile',
  phone: 'user.phone_exists_in_profile',
} as const;

/** No other account may hold the identifiers the profile adds (409, Logto's codes). */
export async function assertAvailable(
  repositories: { users: UsersRepository },
  profile: ExperienceProfile,
  userId?: string,
): Promise<void> {
  for (const type of ['username', 'email', 'phone'] as const) {
    const value = profile[FIELD[type]];
    if (!value) continue;
    const holder = await findUserBy(repositories, { type, value });
    if (holder && holder.id !== userId)
      throw errors.experience(IN_USE[type], `this ${type} is already used by another account`);
  }
}

/** A unique-index violation while writing (a concurrent registration won the race) as Logto's conflict code. */
export function asIdentifierConflict(error: unknown): unknown {
  if (!(error instanceof DomainError) || error.code !== 'entity.unique_integrity_violation') return error;
  const field = (error.data as { field?: string } | undefined)?.field;
  const type = (Object.keys(FIELD) as IdentifierType[]).find((key) => FIELD[key] === field);
  return type ? errors.experience(IN_USE[type], `this ${type} is already used by another account`) : error;
}

/** What the password policy sees of the user: the identified account, with the profile being built over it. */
function policySubject(profile: ExperienceProfile, user?: User) {
  return {
    username: profile.username ?? user?.username ?? null,
    primaryEmail: profile.primaryEmail ?? user?.primaryEmail ?? null,
    primaryPhone: profile.primaryPhone ?? user?.primaryPhone ?? null,
    name: user?.name ?? null,
  };
}

/**
 * The profile being built in an experience. During sign-in it completes the identified account: what the
 * account already has cannot be replaced here (422 `user.*_exists_in_profile`).
 */
export function createProfiles(deps: Pick<ExperienceDeps, 'repositories' | 'signInExperience'>) {
  async function hashUnderPolicy(password: string, profile: ExperienceProfile, user?: User): Promise<string> {
    await deps.signInExperience.assertPassword(password, policySubject(profile, user));
    return hashPassword(password);
  }

  return {
    async set(record: ExperienceRecord, input: ProfileInput, user?: User): Promise<void> {
      if (input.type === 'password') {
        if (user?.hasPassword)
          throw errors.experience('user.password_exists_in_profile', 'this account already has a password');
        record.profile.passwordDigest = await hashUnderPolicy(input.value, record.profile, user);
        return;
      }
      const value =
        input.type === 'username' ? input.value : verifiedIdentifier(record, input.type, input.verificationId);
      if (user?.[FIELD[input.type]])
        throw errors.experience(ON_ACCOUNT[input.type], `this account already has a ${input.type}`);
      const change = { [FIELD[input.type]]: value };
      await assertAvailable(deps.repositories, change, user?.id);
      Object.assign(record.profile, change);
    },

    /** Forgot password: the new password, under the policy, and not the one the account has now. */
    async reset(record: ExperienceRecord, password: string, user: User): Promise<void> {
      const found = await deps.repositories.users.findWithSecrets({ id: user.id });
      if (found?.secrets.passwordDigest && (await verifyPassword(password, found.secrets.passwordDigest))) {
        throw errors.experience('user.same_password', 'the new password must differ from the current one');
      }
      record.profile.passwordDigest = await hashUnderPolicy(password, {}, user);
    },
  };
}

/** The email or phone of a verified code verification of this experience. */
function verifiedIdentifier(record: ExperienceRecord, type: 'email' | 'phone', verificationId: string): string {
  const verification = verificationOf(record, verificationId, [
    type === 'email' ? 'EmailVerificationCode' : 'PhoneVerificationCode',
  ]);
  if (!verification.verified)
    throw errors.experience('session.verification_failed', 'this verification has not succeeded yet');
  return verification.identifier.value;
}
