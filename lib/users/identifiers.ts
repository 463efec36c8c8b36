import { errors } from '../errors.ts';
import type { User } from './repository.ts';

type IdentifierChange = Partial<Pick<User, 'username' | 'primaryEmail' | 'primaryPhone' | 'identities'>>;

/**
 * Refuses (422 `user.last_sign_in_method_required`) a change that would leave the user nothing to sign in with:
 * no username, email, phone or linked identity (`otherIdentities` counts identities kept elsewhere, e.g. SSO).
 */
export function assertRemainingIdentifier(user: User, change: IdentifierChange, otherIdentities = 0): void {
  const after = { ...user, ...change };
  const count =
    Number(Boolean(after.username)) +
    Number(Boolean(after.primaryEmail)) +
    Number(Boolean(after.primaryPhone)) +
    Object.keys(after.identities).length +
    otherIdentities;
  if (count === 0) {
    throw errors.unprocessable(
      'user.last_sign_in_method_required',
      'the account must keep at least one way to sign in',
    );
  }
}
