import { assertAllFound, errors } from '../errors.ts';
import type { OrganizationRolesRepository } from './roles-repository.ts';
import type { OrganizationScopesRepository } from './scopes-repository.ts';
import type { OrganizationsRepository } from './repository.ts';
import type { Organization } from './repository.ts';
import type { OrganizationRole } from './roles-repository.ts';
import type { OrganizationRoleType } from './types.ts';
import type { OrganizationScope } from './scopes-repository.ts';

type AccessDeps = {
  organizations: OrganizationsRepository;
  organizationRoles: OrganizationRolesRepository;
  organizationScopes: OrganizationScopesRepository;
};

const requireMembership = (what: string, id: string, organizationId: string) =>
  errors.unprocessable(
    'organization.require_membership',
    `${what} ${id} is not a member of organization ${organizationId}`,
  );

/**
 * What members may do inside an organization: the organization roles of member applications, roles given
 * to several member users at once, and the organization scopes a member's roles add up to.
 */
export function createMemberAccess(deps: AccessDeps, mustFind: (id: string) => Promise<Organization>) {
  const { organizations, organizationRoles, organizationScopes } = deps;

  async function assertRolesOfType(organizationRoleIds: readonly string[], type: OrganizationRoleType): Promise<void> {
    const found = await organizationRoles.findByIds([...new Set(organizationRoleIds)]);
    assertAllFound('organization role', organizationRoleIds, found, { relation: true });
    if (found.some((role) => role.type !== type)) {
      const who = type === 'User' ? 'users' : 'applications';
      throw errors.unprocessable(
        'organization.role_type_mismatch',
        `only ${type} organization roles can be assigned to ${who}`,
      );
    }
  }

  async function assertApplicationMember(organizationId: string, applicationId: string): Promise<void> {
    await mustFind(organizationId);
    if (!(await organizations.applications.has({ organizationId }, applicationId))) {
      throw requireMembership('application', applicationId, organizationId);
    }
  }

  const applicationOwner = (organizationId: string, applicationId: string) => ({ organizationId, applicationId });

  return {
    async applicationRoles(id: string, applicationId: string): Promise<OrganizationRole[]> {
      await assertApplicationMember(id, applicationId);
      return organizationRoles.findByIds(
        await organizations.applicationRoles.targetsOf(applicationOwner(id, applicationId)),
      );
    },
    async assignApplicationRoles(
      id: string,
      applicationId: string,
      organizationRoleIds: readonly string[],
    ): Promise<void> {
      await assertApplicationMember(id, applicationId);
      await assertRolesOfType(organizationRoleIds, 'MachineToMachine');
      await organizations.applicationRoles.add(applicationOwner(id, applicationId), organizationRoleIds);
    },
    async replaceApplicationRoles(
      id: string,
      applicationId: string,
      organizationRoleIds: readonly string[],
    ): Promise<void> {
      await assertApplicationMember(id, applicationId);
      await assertRolesOfType(organizationRoleIds, 'MachineToMachine');
      await organizations.applicationRoles.replace(applicationOwner(id, applicationId), organizationRoleIds);
    },
    async removeApplicationRole(id: string, applicationId: string, organizationRoleId: string): Promise<void> {
      await assertApplicationMember(id, applicationId);
      if (!(await organizations.applicationRoles.remove(applicationOwner(id, applicationId), organizationRoleId))) {
        throw errors.notLinked('organization role assignment', organizationRoleId);
      }
    },

    /** Gives every listed member every listed role; all users must be members (nothing changes otherwise). */
    async assignRolesToMembers(
      id: string,
      userIds: readonly string[],
      organizationRoleIds: readonly string[],
    ): Promise<void> {
      await mustFind(id);
      for (const userId of new Set(userIds)) {
        if (!(await organizations.users.has({ organizationId: id }, userId)))
          throw requireMembership('user', userId, id);
      }
      await assertRolesOfType(organizationRoleIds, 'User');
      for (const userId of new Set(userIds))
        await organizations.userRoles.add({ organizationId: id, userId }, organizationRoleIds);
    },

    /** Gives every listed member application every listed role; all must be members (nothing changes otherwise). */
    async assignRolesToApplications(
      id: string,
      applicationIds: readonly string[],
      organizationRoleIds: readonly string[],
    ): Promise<void> {
      await mustFind(id);
      for (const applicationId of new Set(applicationIds)) {
        if (!(await organizations.applications.has({ organizationId: id }, applicationId)))
          throw requireMembership('application', applicationId, id);
      }
      await assertRolesOfType(organizationRoleIds, 'MachineToMachine');
      for (const applicationId of new Set(applicationIds))
        await organizations.applicationRoles.add(applicationOwner(id, applicationId), organizationRoleIds);
    },

    /** The organization scopes a member's organization roles grant there (422 for a non-member). */
    async memberScopes(id: string, userId: string): Promise<OrganizationScope[]> {
      await mustFind(id);
      if (!(await organizations.users.has({ organizationId: id }, userId))) throw requireMembership('user', userId, id);
      const roleIds = await organizations.userRoles.targetsOf({ organizationId: id, userId });
      if (roleIds.length === 0) return [];
      const links = await organizationRoles.scopes.where({ organizationRoleId: roleIds });
      return organizationScopes.findByIds([...new Set(links.map((link) => link.organizationScopeId!))]);
    },

    /** Forgets a member application's organization roles (it left the organization). */
    async removeApplicationRolesOf(id: string, applicationIds: readonly string[]): Promise<void> {
      if (applicationIds.length)
        await organizations.applicationRoles.removeWhere({ organizationId: id, applicationId: applicationIds });
    },
  };
}
