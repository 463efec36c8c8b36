import type { Repositories } from '../repositories.ts';
import type { User } from '../users/repository.ts';
import type { Identifier, Lockout } from './lockout.ts';
import { hashPassword, verifyPassword } from '../users/passwords.ts';

export type SignInResult = { ok: true; user: User } | { ok: false; reason: 'invalid_credentials' | 'suspended' | 'locked' };

function identifierOf(text: string): Identifier {
  return text.includes('@') ? { type: 'email', value: text.toLowerCase() } : { type: 'username', value: text };
}

/**
 * Password sign-in by username or email, under the lockout policy. The attempt is reserved before the password
 * is checked, so a locked or exhausted budget refuses it without evaluating the guess. An unknown identifier
 * costs the same KDF work as a wrong password, so response time does not reveal which accounts exist.
 */
export function createPasswordSignIn(deps: { repositories: Pick<Repositories, 'users'>; lockout: Lockout }) {
  let decoy: Promise<string> | undefined;

  return async function signIn(text: string, password: string): Promise<SignInResult> {
    const identifier = identifierOf(text);
    const lookup = identifier.type === 'email' ? { primaryEmail: identifier.value } : { username: identifier.value };
    const found = await deps.repositories.users.findWithSecrets(lookup);
    const attempt = await deps.lockout.reserve(identifier, found?.user.id);
    if (!attempt) return { ok: false, reason: 'locked' };
    decoy ??= hashPassword('decoy password for unknown identifiers');
    const matches = await verifyPassword(password, found?.secrets.passwordDigest ?? (await decoy));
    if (!found || !found.secrets.passwordDigest || !matches) {
      return { ok: false, reason: (await attempt.failed()) ? 'locked' : 'invalid_credentials' };
    }
    if (!(await attempt.succeeded())) return { ok: false, reason: 'locked' };
    if (found.user.isSuspended) return { ok: false, reason: 'suspended' };
    return { ok: true, user: found.user };
  };
}
