import type { Logger } from 'pino';
import { CONSOLE_ADMIN_ROLE_ID } from '../bootstrap.ts';
import { errors } from '../errors.ts';
import { digest, newSecret } from '../ids.ts';
import type { KeyValueStore } from '../ports/kv.ts';
import type { RolesRepository } from '../roles/repository.ts';
import type { UsersRepository } from '../users/repository.ts';
import type { User } from '../users/repository.ts';
import type { UsersLibrary } from '../users/library.ts';
import type { SignInExperienceLibrary } from '../sign-in-experience/library.ts';

/** How long a printed setup link works: long enough to open it after a deployment, short enough not to linger. */
export const SETUP_LINK_TTL_MS = 24 * 3600 * 1000;
const setupKey = (token: string) => `console-setup:${digest(token)}`;

interface AdminsDeps {
  repositories: { roles: RolesRepository; users: UsersRepository };
  users: UsersLibrary;
  signInExperience: Pick<SignInExperienceLibrary, 'assertPassword'>;
  kv: KeyValueStore;
  logger: Logger;
}

/**
 * Console admins: users holding the built-in `console-admin` role. One can be configured (`ADMIN_USERNAME` and
 * `ADMIN_PASSWORD`, re-applied on every start); otherwise the first one is created through a one-time setup link.
 */
export function createConsoleAdmins(deps: AdminsDeps) {
  const { repositories, users, kv } = deps;

  const hasAdmin = async () => (await repositories.roles.userIdsOfRole(CONSOLE_ADMIN_ROLE_ID)).length > 0;

  async function makeAdmin(user: User): Promise<void> {
    await repositories.roles.assignToUser(user.id, [CONSOLE_ADMIN_ROLE_ID]);
  }

  return {
    hasAdmin,
    /**
     * The configured admin: created when no user has the username, otherwise given the password again, unsuspended
     * and (back) in the role. The password obeys the password policy like any other.
     */
    async applyConfigured(username: string, password: string): Promise<void> {
      const found = await repositories.users.findWithSecrets({ username });
      if (!found) {
        await makeAdmin(await users.create({ username, password }));
        deps.logger.info({ username }, 'console admin created from ADMIN_USERNAME');
        return;
      }
      await users.setPassword(found.user.id, password);
      if (found.user.isSuspended) await users.setSuspended(found.user.id, false);
      await makeAdmin(found.user);
    },
    /** A fresh single-use setup link token while no admin exists; undefined once one does. */
    async openSetup(): Promise<string | undefined> {
      if (await hasAdmin()) return undefined;
      const token = newSecret('setup_');
      await kv.set(setupKey(token), String(Date.now() + SETUP_LINK_TTL_MS), SETUP_LINK_TTL_MS);
      return token;
    },
    /** Whether the link can still be used (the setup page asks before showing its form); spends nothing. */
    async setupState(token: string): Promise<'open' | 'invalid' | 'completed'> {
      if (await hasAdmin()) return 'completed';
      return (await kv.get(setupKey(token))) ? 'open' : 'invalid';
    },
    /**
     * Creates the first admin. The link is spent atomically, so of any number of concurrent requests with it one
     * succeeds; a request refused for its username or password leaves the link usable.
     */
    async completeSetup(token: string, username: string, password: string): Promise<User> {
      if (await hasAdmin())
        throw errors.conflict('console.setup_completed', 'a console admin exists: sign in to the console instead');
      await deps.signInExperience.assertPassword(password, { username });
      const key = setupKey(token);
      const expiresAt = await kv.getDel(key);
      if (!expiresAt)
        throw errors.refused('console.setup_link_invalid', 'this setup link is unknown, already used or expired');
      try {
        const user = await users.create({ username, password });
        await makeAdmin(user);
        return user;
      } catch (error) {
        const left = Number(expiresAt) - Date.now();
        if (left > 0) await kv.set(key, expiresAt, left);
        throw error;
      }
    },
  };
}

export type ConsoleAdmins = ReturnType<typeof createConsoleAdmins>;
