import type { Repositories } from './repositories/index.ts';
import type { User } from './repositories/users.ts';
import type { Identifier, Lockout } from './lockout.ts';
import { hashPassword, verifyPassword } from './passwords.ts';

export type SignInResult = { ok: true; user: User } | { ok: false; reason: 'invalid_credentials' | 'suspended' | 'locked' };

function identifierOf(text: string): Identifier {
  return text.includes('@') ? { type: 'email', value: text.toLowerCase() } : { type: 'username', value: text };
}

/**
 * Password sign-in by username or email, under the lockout policy. An unknown identifier costs the same KDF
 * work as a wrong password, so response time does not reveal which accounts exist.
 */
export function createPasswordSignIn(deps: { repositories: Pick<Repositories, 'users'>; lockout: Lockout }) {
  let decoy: Promise<string> | undefined;

  return async function signIn(text: string, password: string): Promise<SignInResult> {
    const identifier = identifierOf(text);
    if (await deps.lockout.isLocked(identifier)) return { ok: false, reason: 'locked' };
    const lookup = identifier.type === 'email' ? { primaryEmail: identifier.value } : { username: identifier.value };
    const found = await deps.repositories.users.findWithSecrets(lookup);
    decoy ??= hashPassword('decoy password for unknown identifiers');
    const matches = await verifyPassword(password, found?.secrets.passwordDigest ?? (await decoy));
    if (!found || !found.secrets.passwordDigest || !matches) {
      await deps.lockout.recordFailure(identifier);
      const locked = await deps.lockout.isLocked(identifier);
      return { ok: false, reason: locked ? 'locked' : 'invalid_credentials' };
    }
    await deps.lockout.recordSuccess(identifier);
    if (found.user.isSuspended) return { ok: false, reason: 'suspended' };
    return { ok: true, user: found.user };
  };
}
