import { errors } from '../errors.ts';
import type { EmitData } from '../events/operation.ts';
import type { IdentitiesRepository } from './identities-repository.ts';
import type { UsersRepository } from '../users/repository.ts';
import type { User } from '../users/repository.ts';
import type { SsoIdentity } from './identities-repository.ts';

/** Logto's social identity on a user: `identities[target] = { userId, details }`. */
export interface SocialIdentity {
  userId: string;
  details?: Record<string, unknown>;
}

/**
 * Users' external identities. A social identity is held by at most one user (claimed atomically before it is
 * written on the user, released when unlinked); a user holds at most one identity per target. Enterprise SSO
 * identities are keyed by issuer and subject in the same way.
 */
export function createIdentitiesLibrary(deps: {
  users: UsersRepository;
  identities: IdentitiesRepository;
  emit: EmitData;
}) {
  const { users, identities, emit } = deps;

  async function mustFind(id: string): Promise<User> {
    const user = await users.findById(id);
    if (!user) throw errors.notFound('user', id);
    return user;
  }

  const held = (user: User, target: string) => user.identities[target] as SocialIdentity | undefined;

  return {
    async userBySocial(target: string, identityId: string): Promise<User | undefined> {
      const holder = await identities.socialHolder(target, identityId);
      return (holder && (await users.findById(holder))) || undefined;
    },

    /** Links (or replaces) the user's identity for `target`; 409 `user.identity_already_in_use` when another user holds it. */
    async linkSocial(
      userId: string,
      target: string,
      identity: SocialIdentity,
    ): Promise<{ user: User; created: boolean }> {
      const user = await mustFind(userId);
      if (!(await identities.claimSocial(userId, target, identity.userId))) {
        throw errors.conflict('user.identity_already_in_use', 'another account already has this identity');
      }
      const previous = held(user, target);
      if (previous && previous.userId !== identity.userId)
        await identities.releaseSocial(userId, target, previous.userId);
      const updated = await users.update(userId, { identities: { ...user.identities, [target]: identity } });
      if (!updated) {
        await identities.releaseSocial(userId, target, identity.userId);
        throw errors.notFound('user', userId);
      }
      emit('User.Data.Updated', { data: updated });
      return { user: updated, created: previous === undefined };
    },

    /** 404 `user.identity_not_exist` when the user has no identity for `target`. */
    async unlinkSocial(userId: string, target: string): Promise<User> {
      const user = await mustFind(userId);
      const identity = held(user, target);
      if (!identity) throw errors.experience('user.identity_not_exist', `this user has no ${target} identity`);
      const { [target]: _removed, ...rest } = user.identities;
      const updated = await users.update(userId, { identities: rest });
      if (!updated) throw errors.notFound('user', userId);
      await identities.releaseSocial(userId, target, identity.userId);
      emit('User.Data.Updated', { data: updated });
      return updated;
    },

    async userBySso(issuer: string, identityId: string): Promise<User | undefined> {
      const identity = await identities.ssoHolder(issuer, identityId);
      return (identity && (await users.findById(identity.userId))) || undefined;
    },

    /**
     * Stores the user's enterprise identity (its details refreshed at each sign-in); 409 `user.identity_already_in_use`
     * when another user holds it. A new one is a change to the user (User.Data.Updated).
     */
    async linkSso(identity: Omit<SsoIdentity, 'id' | 'createdAt' | 'updatedAt'>): Promise<SsoIdentity> {
      const isNew = !(await identities.ssoHolder(identity.issuer, identity.identityId));
      const stored = await identities.upsertSso(identity);
      if (!stored) throw errors.conflict('user.identity_already_in_use', 'another account already has this identity');
      if (isNew) emit('User.Data.Updated', { data: await mustFind(identity.userId) });
      return stored;
    },

    async ssoIdentitiesOf(userId: string): Promise<SsoIdentity[]> {
      await mustFind(userId);
      return identities.ssoOf(userId);
    },
  };
}

export type IdentitiesLibrary = ReturnType<typeof createIdentitiesLibrary>;
