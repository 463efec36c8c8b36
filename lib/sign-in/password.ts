import type { UsersRepository } from '../users/repository.ts';
import type { User } from '../users/repository.ts';
import type { Identifier, Lockout } from './lockout.ts';
import { hashPassword, needsRehash, verifyPassword } from '../users/passwords.ts';

export type SignInResult =
  | { ok: true; user: User }
  | { ok: false; reason: 'invalid_credentials' | 'suspended' | 'locked' };

/** The stored-user filter an identifier names; email addresses are stored lower-cased. */
export function userLookup(
  identifier: Identifier,
): { id: string } | { username: string } | { primaryEmail: string } | { primaryPhone: string } {
  if (identifier.type === 'userId') return { id: identifier.value };
  if (identifier.type === 'email') return { primaryEmail: identifier.value.toLowerCase() };
  if (identifier.type === 'phone') return { primaryPhone: identifier.value };
  return { username: identifier.value };
}

/**
 * Password verification of a typed identifier (username, email or phone) under the lockout policy. The attempt
 * is reserved before the password is checked, so a locked or exhausted budget refuses it without evaluating the
 * guess. An unknown identifier costs the same KDF work as a wrong password, so response time does not reveal
 * which accounts exist; suspension is told only to whoever knows the password.
 */
export function createPasswordVerification(deps: { repositories: { users: UsersRepository }; lockout: Lockout }) {
  let decoy: Promise<string> | undefined;

  return async function verify(identifier: Identifier, password: string): Promise<SignInResult> {
    const found = await deps.repositories.users.findWithSecrets(userLookup(identifier));
    const outcome = await deps.lockout.verify(identifier, found?.user.id, async () => {
      decoy ??= hashPassword('decoy password for unknown identifiers');
      const matches = await verifyPassword(password, found?.secrets.passwordDigest ?? (await decoy));
      return Boolean(found?.secrets.passwordDigest) && matches;
    });
    if (outcome === 'locked') return { ok: false, reason: 'locked' };
    if (outcome === 'failed' || !found) return { ok: false, reason: 'invalid_credentials' };
    if (found.user.isSuspended) return { ok: false, reason: 'suspended' };
    // A digest imported from another system gives way to ours once the password is known to be right.
    if (needsRehash(found.secrets.passwordDigest)) {
      await deps.repositories.users.update(found.user.id, { passwordDigest: await hashPassword(password) });
    }
    return { ok: true, user: found.user };
  };
}
