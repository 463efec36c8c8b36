import type { Context } from 'koa';
import type Provider from 'oidc-provider';
import { errors } from '../errors.ts';
import type { EventBus } from '../events/bus.ts';
import type { Messaging } from '../messaging/index.ts';
import type { KeyValueStore } from '../ports/kv.ts';
import type { UsersRepository } from '../users/repository.ts';
import type { ApplicationsRepository } from '../applications/repository.ts';
import type { OidcRevocation } from '../oidc/revocation.ts';
import type { SignInExperienceLibrary } from '../sign-in-experience/library.ts';
import type { Lockout } from '../sign-in/lockout.ts';
import { assertRemainingIdentifier } from '../users/identifiers.ts';
import type { UsersLibrary } from '../users/library.ts';
import type { User } from '../users/repository.ts';
import { accountOf, assertNotImpersonated, createAccountAuth, type AccountPrincipal } from './auth.ts';
import { fieldAllowed, type AccountCenter, type AccountCenterSettings, type AccountField } from './center.ts';
import { scopedProfile, type AccountProfile } from './profile.ts';
import { createAccountVerifications } from './verifications.ts';
import { createAccountSessions } from './sessions.ts';

export type { AccountPrincipal } from './auth.ts';
export type { AccountCenter, AccountField } from './center.ts';
export type { AccountProfile } from './profile.ts';

/** Logto's header naming the verification record that proves the user's identity for a sensitive change. */
export const VERIFICATION_HEADER = 'logto-verification-id';

/** What a route needs before it acts: which account-center field, read or changed, and whether behind the gate. */
export interface AccountNeeds {
  /** The account-center field the route reads or changes; none for routes that touch no field (verifications). */
  field?: AccountField;
  /** `edit` also covers acting as the user without changing a field (verifications): impersonation may only `read`. */
  access: 'read' | 'edit';
  /** The gate: a fresh verified identity record named by `logto-verification-id` (401 `verification_record.permission_denied`). */
  identity?: boolean;
}

/** An authorized Account API request: who, the account-center settings, and the user as stored now. */
export interface AccountRequest {
  principal: AccountPrincipal;
  center: AccountCenter;
  user: User;
}

export interface AccountDeps {
  provider: Provider;
  /** The account center's settings (also read by passkeys, for their related origins). */
  center: AccountCenterSettings;
  kv: KeyValueStore;
  bus: EventBus;
  repositories: { users: UsersRepository; applications: ApplicationsRepository; oidcRevocation: OidcRevocation };
  users: UsersLibrary;
  signInExperience: Pick<SignInExperienceLibrary, 'get'>;
  messaging: Pick<Messaging, 'sendCode' | 'verifyCode'>;
  /** The service's one lockout, shared with sign-in. */
  lockout: Lockout;
  /** Whether an impersonation's tokens may still be honoured (revoked or expired: not). */
  impersonationActive: (id: string) => Promise<boolean>;
}

/** Fields of `PATCH /api/my-account`, each under the account-center field of the same name. */
export interface BasicChanges {
  name?: string | null;
  avatar?: string | null;
  username?: string | null;
  customData?: Record<string, unknown>;
}

type Channel = 'email' | 'phone';
const FIELD_OF: Record<Channel, { field: 'primaryEmail' | 'primaryPhone'; scope: string; other: Channel }> = {
  email: { field: 'primaryEmail', scope: 'email', other: 'phone' },
  phone: { field: 'primaryPhone', scope: 'phone', other: 'email' },
};

/**
 * The Account API (Logto's `/api/my-account` and `/api/verifications`): a signed-in user reads and changes their
 * own account with their own access token. Every route runs `authorize` with what it needs; the changes below
 * write through the users library, which states User.Data.Updated when something changed, and answer the user
 * after the change.
 */
export function createAccount(deps: AccountDeps) {
  const { lockout } = deps;
  const auth = createAccountAuth({
    provider: deps.provider,
    users: deps.repositories.users,
    impersonationActive: deps.impersonationActive,
  });
  const { center } = deps;
  const sessions = createAccountSessions(deps.repositories);
  const verifications = createAccountVerifications({
    kv: deps.kv,
    repositories: deps.repositories,
    messaging: deps.messaging,
    lockout,
  });

  /**
   * The one check every Account API route makes, in this order: the user's token (the route's authentication
   * already ran: `accountOf`), impersonation tokens read only (403 `auth.impersonation_not_allowed`), the account
   * center on and the field allowed (403 `account_center.*`), then for sensitive changes the gate. Routes of other
   * capabilities (MFA factors, linked identities) call it the same way:
   *
   *   const { principal, user } = await core.account.authorize(ctx, { field: 'mfa', access: 'edit', identity: true });
   */
  async function authorize(ctx: Context, needs: AccountNeeds): Promise<AccountRequest> {
    const principal = accountOf(ctx);
    if (needs.access === 'edit') assertNotImpersonated(principal);
    const settings = await center.get();
    fieldAllowed(settings, needs.field, needs.access);
    const user = await deps.users.mustFind(principal.userId);
    if (needs.identity) await verifications.assertIdentity(user, ctx.get(VERIFICATION_HEADER) || undefined);
    return { principal, center: settings, user };
  }

  /** The gate alone, for a route that decides from its body whether the change is sensitive. */
  const assertIdentity = (ctx: Context, user: User) =>
    verifications.assertIdentity(user, ctx.get(VERIFICATION_HEADER) || undefined);

  return {
    auth,
    center,
    verifications,
    sessions,
    authorize,
    assertIdentity,
    profileOf: (request: AccountRequest, user: User = request.user): AccountProfile =>
      scopedProfile(user, request.principal.scopes, request.center),

    /** `PATCH /api/my-account`: a username change goes through the gate, as in Logto; customData needs `custom_data`. */
    async updateBasics(ctx: Context, request: AccountRequest, changes: BasicChanges): Promise<User> {
      const { principal, center: settings, user } = request;
      for (const field of ['name', 'avatar', 'username', 'customData'] as const) {
        if (changes[field] !== undefined) fieldAllowed(settings, field, 'edit');
      }
      if (!principal.scopes.has('profile')) throw errors.forbidden('profile');
      if (changes.customData !== undefined && !principal.scopes.has('custom_data'))
        throw errors.forbidden('custom_data');
      if (changes.username !== undefined && changes.username !== user.username) {
        await assertIdentity(ctx, user);
        if (changes.username === null) assertRemainingIdentifier(user, { username: null });
      }
      return deps.users.update(user.id, changes);
    },

    /** `PATCH /api/my-account/profile`: top-level keys merged into the profile. */
    async updateProfile(request: AccountRequest, profile: Record<string, unknown>): Promise<User> {
      if (!request.principal.scopes.has('profile')) throw errors.forbidden('profile');
      return deps.users.mergeProfile(request.user.id, profile);
    },

    /**
     * `POST /api/my-account/password`: behind the gate whenever the user has a way to prove who they are (a
     * password, email or phone), as in Logto; the sign-in experience's password policy applies (422 `password.rejected`).
     * Then every other session of the user ends, with its grants and tokens: only the device and application that
     * made the change stay signed in.
     */
    async setPassword(ctx: Context, request: AccountRequest, password: string): Promise<User> {
      const { user, principal } = request;
      if (user.hasPassword || user.primaryEmail || user.primaryPhone) await assertIdentity(ctx, user);
      const updated = await deps.users.setPassword(user.id, password);
      await deps.users.endOtherSessions(user.id, principal.grantId);
      return updated;
    },

    /**
     * `POST /api/my-account/primary-email|phone` (after the gate): the new address is proven by a verified code
     * record, spent by this change; a taken address is 409 and gives the record back.
     */
    async setPrimary(request: AccountRequest, channel: Channel, value: string, recordId: string): Promise<User> {
      const { principal, user } = request;
      const { field, scope } = FIELD_OF[channel];
      if (!principal.scopes.has(scope)) throw errors.forbidden(scope);
      const spent = await verifications.spendNewIdentifier(user.id, recordId, { type: channel, value });
      const normalized = channel === 'email' ? value.trim().toLowerCase() : value;
      try {
        return await deps.users.update(user.id, { [field]: normalized });
      } catch (error) {
        await spent.release();
        throw error;
      }
    },

    /** `DELETE /api/my-account/primary-email|phone` (after the gate): refused when sign-up requires it, or it is the last identifier. */
    async removePrimary(request: AccountRequest, channel: Channel): Promise<User> {
      const { principal, user } = request;
      const { field, scope, other } = FIELD_OF[channel];
      if (!principal.scopes.has(scope)) throw errors.forbidden(scope);
      const { identifiers } = (await deps.signInExperience.get()).signUp;
      if (identifiers.includes(channel)) {
        if (!identifiers.includes(other)) {
          throw errors.unprocessable(
            channel === 'email' ? 'user.email_required' : 'user.phone_required',
            `sign-up requires ${channel === 'email' ? 'an email address' : 'a phone number'}: it cannot be removed`,
          );
        }
        if (!user[FIELD_OF[other].field]) {
          throw errors.unprocessable(
            'user.email_or_phone_required',
            'sign-up requires an email address or a phone number: keep one',
          );
        }
      }
      if (user[field] === null) return user;
      assertRemainingIdentifier(user, { [field]: null });
      return deps.users.update(user.id, { [field]: null });
    },
  };
}

export type Account = ReturnType<typeof createAccount>;
