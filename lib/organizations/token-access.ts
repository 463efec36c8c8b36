import type { MfaRepository } from '../mfa/repository.ts';
import type { OrganizationsRepository } from './repository.ts';
import { isUsable } from '../mfa/library.ts';

type AccessDeps = { organizations: OrganizationsRepository; mfaVerifications: MfaRepository };

/**
 * Why a user may not have a token inside an organization, as Logto decides it (a refusal it answers with
 * access_denied), or undefined when they may: they must be a member, and hold a second factor when the organization
 * requires MFA.
 */
export async function organizationTokenRefusal(
  deps: AccessDeps,
  organizationId: string,
  userId: string,
): Promise<string | undefined> {
  if (!(await deps.organizations.users.has({ organizationId }, userId)))
    return 'user is not a member of the organization';
  if (
    (await deps.organizations.findById(organizationId))?.isMfaRequired &&
    !(await deps.mfaVerifications.listOf(userId)).some(isUsable)
  ) {
    return 'the organization requires MFA but the user has no second factor';
  }
  return undefined;
}
