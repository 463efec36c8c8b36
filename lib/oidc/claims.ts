import type { User } from '../users/repository.ts';

/** `custom_data` and `identities` are Logto's: they grant those claims, and reading those fields through the Account API. */
export const OIDC_SCOPES = ['openid', 'offline_access', 'profile', 'email', 'phone', 'custom_data', 'identities'];

/** Standard OIDC claims of a user, for ID tokens and the userinfo endpoint. */
export function accountClaims(user: User): { sub: string; [claim: string]: unknown } {
  return {
    sub: user.id,
    name: user.name ?? undefined,
    picture: user.avatar ?? undefined,
    preferred_username: user.username ?? undefined,
    updated_at: Math.floor(user.updatedAt / 1000),
    email: user.primaryEmail ?? undefined,
    email_verified: user.primaryEmail ? true : undefined,
    phone_number: user.primaryPhone ?? undefined,
    phone_number_verified: user.primaryPhone ? true : undefined,
    custom_data: user.customData,
    identities: user.identities,
  };
}
