import type { EmitData } from '../events/operation.ts';
import { membershipChanged } from './library.ts';
import { assertAllFound, errors } from '../errors.ts';
import type { ConnectorsRepository } from '../connectors/repository.ts';
import type { OrganizationRolesRepository } from './roles-repository.ts';
import type { OrganizationsRepository } from './repository.ts';
import type { Organization } from './repository.ts';
import type { OrganizationRole } from './roles-repository.ts';

type JitDeps = {
  emit: EmitData;
  organizations: OrganizationsRepository;
  organizationRoles: OrganizationRolesRepository;
  connectors: ConnectorsRepository;
};

/** The domain of an email address, lower-cased, or undefined when it has none. */
function domainOf(email: string): string | undefined {
  const at = email.lastIndexOf('@');
  const domain = at > 0 ? email.slice(at + 1).toLowerCase() : '';
  return domain || undefined;
}

/**
 * Just-in-time provisioning: each organization lists email domains, enterprise SSO connectors and default
 * organization roles; a user whose verified email has one of those domains, or who signs up (or first signs in)
 * through one of those connectors, joins the organization with those roles.
 */
export function createOrganizationJitLibrary(deps: JitDeps) {
  const { organizations, organizationRoles, connectors } = deps;

  async function mustFind(id: string): Promise<Organization> {
    const organization = await organizations.findById(id);
    if (!organization) throw errors.notFound('organization', id);
    return organization;
  }

  /** Default roles are given to users, so they must exist and be User roles. */
  async function assertUserRoles(organizationRoleIds: readonly string[]): Promise<void> {
    const found = await organizationRoles.findByIds([...new Set(organizationRoleIds)]);
    assertAllFound('organization role', organizationRoleIds, found, { relation: true });
    if (found.some((role) => role.type !== 'User')) {
      throw errors.unprocessable(
        'organization.role_type_mismatch',
        'only User organization roles can be JIT default roles',
      );
    }
  }

  async function assertSsoConnectors(ids: readonly string[]): Promise<void> {
    assertAllFound('SSO connector', ids, await connectors.sso.findByIds([...new Set(ids)]), { relation: true });
  }

  /** Each organization the user was not a member of states Organization.Membership.Updated. */
  async function provisionInto(userId: string, organizationIds: readonly string[]): Promise<void> {
    for (const organizationId of new Set(organizationIds)) {
      const organization = await organizations.findById(organizationId);
      if (!organization) continue;
      const added = await organizations.users.add({ organizationId }, [userId]);
      if (added.length === 0) continue;
      const organizationRoleIds = await organizations.jitRoles.targetsOf({ organizationId });
      if (organizationRoleIds.length)
        await organizations.userRoles.add({ organizationId, userId }, organizationRoleIds);
      membershipChanged(deps.emit, organization, { addedUserIds: [userId] });
    }
  }

  return {
    async roles(id: string): Promise<OrganizationRole[]> {
      await mustFind(id);
      const ids = await organizations.jitRoles.targetsOf({ organizationId: id });
      const found = await organizationRoles.findByIds(ids);
      return ids.flatMap((roleId) => found.filter((role) => role.id === roleId));
    },
    async addRoles(id: string, organizationRoleIds: readonly string[]): Promise<void> {
      await mustFind(id);
      await assertUserRoles(organizationRoleIds);
      await organizations.jitRoles.add({ organizationId: id }, organizationRoleIds);
    },
    async replaceRoles(id: string, organizationRoleIds: readonly string[]): Promise<void> {
      await mustFind(id);
      await assertUserRoles(organizationRoleIds);
      await organizations.jitRoles.replace({ organizationId: id }, organizationRoleIds);
    },
    async removeRole(id: string, organizationRoleId: string): Promise<void> {
      await mustFind(id);
      if (!(await organizations.jitRoles.remove({ organizationId: id }, organizationRoleId))) {
        throw errors.notLinked('organization JIT role', organizationRoleId);
      }
    },

    /**
     * Adds the user to every organization that lists the email's domain, with its default roles; the caller
     * must have verified the email.
     */
    async provisionByVerifiedEmail(userId: string, email: string): Promise<void> {
      const domain = domainOf(email);
      if (!domain) return;
      const links = await organizations.jitEmailDomains.where({ emailDomain: domain });
      return provisionInto(
        userId,
        links.map((link) => link.organizationId!),
      );
    },

    /** Adds the user to every organization linked to the enterprise SSO connector, as `provisionByVerifiedEmail` does. */
    async provisionBySsoConnector(userId: string, ssoConnectorId: string): Promise<void> {
      const links = await organizations.jitSsoConnectors.where({ ssoConnectorId });
      return provisionInto(
        userId,
        links.map((link) => link.organizationId!),
      );
    },

    async ssoConnectorIds(id: string): Promise<string[]> {
      await mustFind(id);
      return organizations.jitSsoConnectors.targetsOf({ organizationId: id });
    },
    /** The enterprise connectors whose users join the organization just in time. */
    async ssoConnectors(id: string) {
      await mustFind(id);
      return deps.connectors.sso.findByIds(await organizations.jitSsoConnectors.targetsOf({ organizationId: id }));
    },
    async addSsoConnectors(id: string, ssoConnectorIds: readonly string[]): Promise<void> {
      await mustFind(id);
      await assertSsoConnectors(ssoConnectorIds);
      await organizations.jitSsoConnectors.add({ organizationId: id }, ssoConnectorIds);
    },
    async replaceSsoConnectors(id: string, ssoConnectorIds: readonly string[]): Promise<void> {
      await mustFind(id);
      await assertSsoConnectors(ssoConnectorIds);
      await organizations.jitSsoConnectors.replace({ organizationId: id }, ssoConnectorIds);
    },
    async removeSsoConnector(id: string, ssoConnectorId: string): Promise<void> {
      await mustFind(id);
      if (!(await organizations.jitSsoConnectors.remove({ organizationId: id }, ssoConnectorId))) {
        throw errors.notLinked('organization JIT SSO connector', ssoConnectorId);
      }
    },
  };
}

export type OrganizationJitLibrary = ReturnType<typeof createOrganizationJitLibrary>;
