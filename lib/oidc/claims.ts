import type { User } from '../users/repository.ts';
import type { OrganizationRolesRepository } from '../organizations/roles-repository.ts';
import type { OrganizationsRepository } from '../organizations/repository.ts';
import { isPictureUrl } from '../users/picture.ts';

/** Logto's organization scopes (its RFC 0001): the `organizations` and `organization_roles` claims. */
export const ORGANIZATIONS_SCOPE = 'urn:logto:scope:organizations';
export const ORGANIZATION_ROLES_SCOPE = 'urn:logto:scope:organization_roles';
/** Logto's scope for listing and ending one's own sessions through the Account API; it grants no claim. */
export const SESSIONS_SCOPE = 'urn:logto:scope:sessions';
/** The resource that stands for the organization template: its scopes are the organization scopes. */
export const ORGANIZATIONS_RESOURCE = 'urn:logto:resource:organizations';

/** `custom_data` and `identities` are Logto's: they grant those claims, and reading those fields through the Account API. */
export const OIDC_SCOPES = [
  'openid',
  'offline_access',
  'profile',
  'email',
  'phone',
  'custom_data',
  'identities',
  ORGANIZATIONS_SCOPE,
  ORGANIZATION_ROLES_SCOPE,
  SESSIONS_SCOPE,
];

/** Which claims each scope grants, in ID tokens and at the userinfo endpoint. */
export const SCOPE_CLAIMS: Record<string, string[]> = {
  openid: ['sub'],
  profile: ['name', 'picture', 'username', 'preferred_username', 'updated_at'],
  email: ['email', 'email_verified'],
  phone: ['phone_number', 'phone_number_verified'],
  custom_data: ['custom_data'],
  identities: ['identities'],
  [ORGANIZATIONS_SCOPE]: ['organizations'],
  [ORGANIZATION_ROLES_SCOPE]: ['organization_roles'],
  [SESSIONS_SCOPE]: [],
};

/** Standard OIDC claims of a user, for ID tokens and the userinfo endpoint. */
export function accountClaims(user: User): { sub: string; [claim: string]: unknown } {
  return {
    sub: user.id,
    name: user.name ?? undefined,
    // A picture that is not http(s) (stored before the rule, or imported) would be a script or a local file in the
    // pages of every application that shows it.
    picture: user.avatar && isPictureUrl(user.avatar) ? user.avatar : undefined,
    // Logto's `username` beside the standard `preferred_username`.
    username: user.username ?? undefined,
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

type OrganizationReads = { organizations: OrganizationsRepository; organizationRoles: OrganizationRolesRepository };

/**
 * Logto's organization claims: the ids of the organizations the user belongs to, and each organization role they
 * hold as `<organizationId>:<roleName>`. Read only when a scope asks for them.
 */
export async function organizationClaims(
  repositories: OrganizationReads,
  userId: string,
  scopes: ReadonlySet<string>,
): Promise<{ organizations?: string[]; organization_roles?: string[] }> {
  const claims: { organizations?: string[]; organization_roles?: string[] } = {};
  if (scopes.has(ORGANIZATIONS_SCOPE)) {
    claims.organizations = (await repositories.organizations.users.where({ userId })).map(
      (link) => link.organizationId!,
    );
  }
  if (scopes.has(ORGANIZATION_ROLES_SCOPE)) {
    const links = await repositories.organizations.userRoles.where({ userId });
    const roles = await repositories.organizationRoles.findByIds([
      ...new Set(links.map((link) => link.organizationRoleId!)),
    ]);
    const names = new Map(roles.map((role) => [role.id, role.name]));
    claims.organization_roles = links
      .filter((link) => names.has(link.organizationRoleId!))
      .map((link) => `${link.organizationId}:${names.get(link.organizationRoleId!)}`);
  }
  return claims;
}
