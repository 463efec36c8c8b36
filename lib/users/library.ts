import type { Page, PageResult, SearchInput } from '../data/entity.ts';
import { assertAllFound, errors, unique } from '../errors.ts';
import { newId } from '../ids.ts';
import { hashPassword, verifyPassword } from './passwords.ts';
import { importedDigest, type ImportedPasswordAlgorithm } from './imported-passwords.ts';
import type { IdentitiesRepository } from '../connectors/identities-repository.ts';
import type { MfaRepository } from '../mfa/repository.ts';
import type { OidcRevocation } from '../oidc/revocation.ts';
import type { OrganizationsRepository } from '../organizations/repository.ts';
import type { RolesRepository } from '../roles/repository.ts';
import type { EmitData } from '../events/operation.ts';
import type { UsersRepository } from './repository.ts';
import type { Role } from '../roles/repository.ts';
import type { User } from './repository.ts';
import type { SignInExperienceLibrary } from '../sign-in-experience/library.ts';
import { isPictureUrl } from './picture.ts';

/** Fields an operator sets on a user; `null` clears an identifier. */
export type UserChanges = {
  username?: string | null;
  primaryEmail?: string | null;
  primaryPhone?: string | null;
  name?: string | null;
  avatar?: string | null;
  customData?: Record<string, unknown>;
  profile?: Record<string, unknown>;
};

export type NewUser = UserChanges & {
  password?: string;
  /** A digest made by another system (Logto's `passwordDigest` + `passwordAlgorithm`), kept until the first sign-in. */
  importedPassword?: { algorithm: ImportedPasswordAlgorithm; digest: string };
  /** A password already hashed where it was received (sign-up keeps no clear-text password in between). */
  passwordDigest?: string;
};

/** What an end-user flow changes on an account: identifiers, a password hashed on receipt, the sign-in time. */
export type ExperienceChanges = {
  username?: string;
  primaryEmail?: string;
  primaryPhone?: string;
  passwordDigest?: string;
  lastSignInAt?: number;
};

type UsersDeps = {
  users: UsersRepository;
  roles: RolesRepository;
  organizations: OrganizationsRepository;
  oidcRevocation: OidcRevocation;
  identities: IdentitiesRepository;
  mfaVerifications: MfaRepository;
  emit: EmitData;
};
/**
 * The sign-in experience's password policy. Passwords the management API sets obey it too: the policy says
 * which passwords the service keeps, whoever chose them (Logto checks end users' only).
 */
type PasswordPolicyGate = Pick<SignInExperienceLibrary, 'assertPassword'>;

/** User rules above storage: password hashing, default roles, suspension, and what deletion cleans up. */
export function createUsersLibrary(deps: UsersDeps, passwordPolicy: PasswordPolicyGate) {
  const { users, roles, organizations, oidcRevocation, mfaVerifications, emit } = deps;

  async function mustFind(id: string): Promise<User> {
    const user = await users.findById(id);
    if (!user) throw errors.missing('entity.not_found', 'user', id);
    return user;
  }

  async function heldRoles(id: string): Promise<Role[]> {
    return roles.findByIds(await roles.roleIdsOfUser(id));
  }

  /** Every way a picture is set (management API, Account API, a provider's profile) ends here. */
  function assertPicture(avatar: string | null | undefined): void {
    if (typeof avatar === 'string' && !isPictureUrl(avatar)) {
      const issue = { path: 'body.avatar', message: 'must be an absolute http(s) URL' };
      throw errors.invalidInput(`invalid body: ${issue.path}: ${issue.message}`, { issues: [issue] });
    }
  }

  type StoredChanges = Parameters<typeof users.update>[1];

  async function write(id: string, changes: StoredChanges): Promise<User> {
    assertPicture(changes.avatar);
    const updated = await unique('user', null, () => users.update(id, changes));
    if (!updated) throw errors.missing('entity.not_found', 'user', id);
    return updated;
  }

  /**
   * Every change to a user's data ends here or in `merged`: User.Data.Updated with the user after it. By default
   * only when something changed: a new password always is a change; the sign-in time alone is not (PostSignIn
   * says it). `always`: every update is announced, changed or not, as Logto's management API does.
   */
  async function update(id: string, changes: StoredChanges, announce: Announce = 'changed'): Promise<User> {
    // Nothing to compare a new password with: the user is read first only to tell whether the other fields changed.
    const before = announce === 'always' || 'passwordDigest' in changes ? undefined : await mustFind(id);
    const updated = await write(id, changes);
    const fields = Object.keys(changes).filter((key) => key !== 'lastSignInAt') as (keyof User)[];
    if (!before || differs(before, updated, fields)) emit('User.Data.Updated', { data: updated });
    return updated;
  }

  /** Top-level keys merged into `customData` or `profile`, announced as `update` does. */
  async function merged(
    id: string,
    field: 'customData' | 'profile',
    value: Record<string, unknown>,
    announce: Announce,
  ): Promise<User> {
    const before = announce === 'always' ? undefined : await mustFind(id);
    const after = await users.mergeInto(id, field, value);
    if (!after) throw errors.missing('entity.not_found', 'user', id);
    if (!before || differs(before, after, [field])) emit('User.Data.Updated', { data: after });
    return after;
  }

  async function assignableRoles(roleIds: readonly string[]): Promise<Role[]> {
    const found = await roles.findByIds([...new Set(roleIds)]);
    assertAllFound('role', roleIds, found);
    if (found.some((role) => role.type !== 'User')) {
      throw errors.unprocessable('user.invalid_role_type', 'only User roles can be assigned to users');
    }
    return found;
  }

  return {
    mustFind,
    async create(input: NewUser): Promise<User> {
      assertPicture(input.avatar);
      if (input.password !== undefined) await passwordPolicy.assertPassword(input.password, input);
      const imported =
        input.importedPassword && importedDigest(input.importedPassword.algorithm, input.importedPassword.digest);
      if (input.importedPassword && !imported) {
        const issue = {
          path: 'body.passwordDigest',
          message: `not a ${input.importedPassword.algorithm} digest this service can verify`,
        };
        throw errors.invalidInput(`invalid body: ${issue.path}: ${issue.message}`, { issues: [issue] });
      }
      const now = Date.now();
      const user: User = {
        id: newId(12),
        username: input.username ?? null,
        primaryEmail: input.primaryEmail ?? null,
        primaryPhone: input.primaryPhone ?? null,
        name: input.name ?? null,
        avatar: input.avatar ?? null,
        customData: input.customData ?? {},
        identities: {},
        profile: input.profile ?? {},
        applicationId: null,
        isSuspended: false,
        hasPassword: input.password !== undefined || input.passwordDigest !== undefined || imported !== undefined,
        lastSignInAt: null,
        createdAt: now,
        updatedAt: now,
      };
      const passwordDigest =
        input.passwordDigest ?? imported ?? (input.password === undefined ? null : await hashPassword(input.password));
      await unique('user', null, () => users.insert(user, { passwordDigest }));
      const defaults = await roles.defaults('User');
      if (defaults.length)
        await roles.assignToUser(
          user.id,
          defaults.map((role) => role.id),
        );
      emit('User.Created', { data: user });
      return user;
    },
    update: (id: string, changes: UserChanges, announce?: Announce) => update(id, changes, announce),
    /** Applies what a sign-in, sign-up or password reset established (Experience API submit). */
    applyExperience(id: string, changes: ExperienceChanges): Promise<User> {
      return update(id, changes.passwordDigest === undefined ? changes : { ...changes, hasPassword: true });
    },
    /** Top-level keys of `customData` are merged into the stored object. */
    mergeCustomData: (id: string, customData: Record<string, unknown>, announce: Announce = 'changed') =>
      merged(id, 'customData', customData, announce),
    /** Top-level keys of `profile` are merged into the stored profile. */
    mergeProfile: (id: string, profile: Record<string, unknown>, announce: Announce = 'changed') =>
      merged(id, 'profile', profile, announce),
    async setPassword(id: string, password: string): Promise<User> {
      await passwordPolicy.assertPassword(password, await mustFind(id));
      return update(id, { passwordDigest: await hashPassword(password), hasPassword: true });
    },
    async verifyPassword(id: string, password: string): Promise<void> {
      const found = await users.findWithSecrets({ id });
      if (!found) throw errors.missing('entity.not_found', 'user', id);
      if (!(await verifyPassword(password, found.secrets.passwordDigest))) {
        throw errors.unprocessable('session.invalid_credentials', 'the password does not match');
      }
    },
    /**
     * Ends the user's sessions, grants and tokens except `keepGrantId`'s and the session it belongs to: after a
     * password change by the user, whoever else was signed in (with the old password, or a stolen session) is out.
     */
    async endOtherSessions(id: string, keepGrantId: string | undefined): Promise<void> {
      await oidcRevocation.revokeUser(id, keepGrantId === undefined ? {} : { keepGrantId });
    },
    /** Suspending also ends every session and grant, so access stops now rather than at token expiry. */
    async setSuspended(id: string, isSuspended: boolean): Promise<User> {
      const user = await write(id, { isSuspended });
      if (isSuspended) await oidcRevocation.revokeUser(id);
      emit('User.SuspensionStatus.Updated', { data: user });
      return user;
    },
    /** Deletes the user with their role assignments, memberships, second factors and OIDC sessions; returns the snapshot. */
    async delete(id: string): Promise<User> {
      await mustFind(id);
      // Children first: outside a transaction, a failure midway leaves the entity, which a retry deletes, never orphans.
      await roles.removeAllOfUser(id);
      await organizations.removeUserEverywhere(id);
      await deps.identities.removeAllOf(id);
      await mfaVerifications.deleteAllOf(id);
      await oidcRevocation.revokeUser(id);
      const deleted = await users.delete(id);
      if (!deleted) throw errors.missing('entity.not_found', 'user', id);
      emit('User.Deleted', { data: deleted });
      return deleted;
    },

    /** The user, or null (the token paths read it; a miss is theirs to answer). */
    findById: (id: string) => users.findById(id),
    /** A page of users; `excludeRoleId` / `excludeOrganizationId` leave out those holding the role or in the organization. */
    async list(
      page: Page,
      filter: { search: SearchInput; excludeRoleId?: string; excludeOrganizationId?: string },
    ): Promise<PageResult<User>> {
      const excludeIds = filter.excludeRoleId
        ? await roles.userIdsOfRole(filter.excludeRoleId)
        : filter.excludeOrganizationId
          ? await organizations.users.targetsOf({ organizationId: filter.excludeOrganizationId })
          : undefined;
      return users.list(page, { search: filter.search, excludeIds });
    },
    /** A page of the user's roles. */
    async listRoles(id: string, page: Page, search: SearchInput): Promise<PageResult<Role>> {
      await mustFind(id);
      return roles.list(page, { search, ids: await roles.roleIdsOfUser(id) });
    },
    /** The roles the user holds, without looking the user up (the token paths have just read it). */
    heldRoles,
    async rolesOf(id: string): Promise<Role[]> {
      await mustFind(id);
      return heldRoles(id);
    },
    /** Returns the ids the user did not hold before (Logto's `addedRoleIds`). */
    async assignRoles(id: string, roleIds: readonly string[]): Promise<string[]> {
      await mustFind(id);
      await assignableRoles(roleIds);
      return roles.assignToUser(id, [...roleIds]);
    },
    async replaceRoles(id: string, roleIds: readonly string[]): Promise<void> {
      await mustFind(id);
      await assignableRoles(roleIds);
      const wanted = new Set(roleIds);
      for (const current of await roles.roleIdsOfUser(id)) {
        if (!wanted.has(current)) await roles.removeFromUser(id, current);
      }
      await roles.assignToUser(id, [...wanted]);
    },
    async removeRole(id: string, roleId: string): Promise<void> {
      await mustFind(id);
      if (!(await roles.removeFromUser(id, roleId))) throw errors.notLinked('role assignment', roleId);
    },
  };
}

/** When an update publishes User.Data.Updated: only when a field changed, or every time (the management API). */
export type Announce = 'changed' | 'always';

/** Whether any of `fields` holds another value after the change than before it. */
function differs(before: User, after: User, fields: readonly (keyof User)[]): boolean {
  return fields.some((field) => JSON.stringify(before[field]) !== JSON.stringify(after[field]));
}

export type UsersLibrary = ReturnType<typeof createUsersLibrary>;
