import type { User } from '../users/repository.ts';
import { readable, type AccountCenter } from './center.ts';

/** What `GET /api/my-account` may answer: the user's fields, each present only when scope and account center allow. */
export type AccountProfile = { id: string } & Partial<Omit<User, 'id'>>;

/**
 * The user as their token may see them (Logto's scoped profile): `profile` scope for the basics, `email`, `phone`,
 * `custom_data` and `identities` for those fields; then the account center hides every field it has `Off`.
 */
export function scopedProfile(user: User, scopes: ReadonlySet<string>, center: AccountCenter): AccountProfile {
  const show = (scope: string, field: Parameters<typeof readable>[1]) => scopes.has(scope) && readable(center, field);
  const profileScope = scopes.has('profile');
  return {
    id: user.id,
    ...(show('identities', 'social') && { identities: user.identities }),
    ...(show('custom_data', 'customData') && { customData: user.customData }),
    ...(show('email', 'email') && { primaryEmail: user.primaryEmail }),
    ...(show('phone', 'phone') && { primaryPhone: user.primaryPhone }),
    ...(show('profile', 'name') && { name: user.name }),
    ...(show('profile', 'avatar') && { avatar: user.avatar }),
    ...(show('profile', 'username') && { username: user.username }),
    ...(show('profile', 'profile') && { profile: user.profile }),
    ...(show('profile', 'password') && { hasPassword: user.hasPassword }),
    ...(profileScope && {
      lastSignInAt: user.lastSignInAt,
      createdAt: user.createdAt,
      updatedAt: user.updatedAt,
      applicationId: user.applicationId,
      isSuspended: user.isSuspended,
    }),
  };
}
