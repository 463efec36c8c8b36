import type { Repositories } from './repositories/index.ts';
import type { User } from './repositories/users.ts';
import { hashPassword, verifyPassword } from './passwords.ts';

export type SignInResult = { ok: true; user: User } | { ok: false; reason: 'invalid_credentials' | 'suspended' };

/**
 * Password sign-in by username or email. An unknown identifier costs the same KDF work as a wrong password,
 * so response time does not reveal which accounts exist.
 */
export function createPasswordSignIn(repositories: Pick<Repositories, 'users'>) {
  let decoy: Promise<string> | undefined;

  return async function signIn(identifier: string, password: string): Promise<SignInResult> {
    const lookup = identifier.includes('@') ? { primaryEmail: identifier.toLowerCase() } : { username: identifier };
    const found = await repositories.users.findWithSecrets(lookup);
    decoy ??= hashPassword('decoy password for unknown identifiers');
    const matches = await verifyPassword(password, found?.secrets.passwordDigest ?? (await decoy));
    if (!found || !found.secrets.passwordDigest || !matches) return { ok: false, reason: 'invalid_credentials' };
    if (found.user.isSuspended) return { ok: false, reason: 'suspended' };
    return { ok: true, user: found.user };
  };
}
