import { withFeaturedMembers } from './featured.ts';
import { assertAllFound, errors } from '../errors.ts';
import { newId } from '../ids.ts';
import type { ApplicationsRepository } from '../applications/repository.ts';
import type { OrganizationInvitationsRepository } from './invitations-repository.ts';
import type { OrganizationRolesRepository } from './roles-repository.ts';
import type { OrganizationScopesRepository } from './scopes-repository.ts';
import type { OrganizationsRepository } from './repository.ts';
import type { UsersRepository } from '../users/repository.ts';
import type { Page, PageResult, SearchInput } from '../data/entity.ts';
import type { Organization, OrganizationBranding, OrganizationColor } from './repository.ts';
import type { OrganizationRole } from './roles-repository.ts';
import type { User } from '../users/repository.ts';
import type { Application } from '../applications/repository.ts';
import { createMemberAccess } from './member-access.ts';
import type { MembershipChanges } from '../events/payloads.ts';
import type { EmitData } from '../events/operation.ts';

export type OrganizationInput = {
  name?: string;
  description?: string | null;
  customData?: Record<string, unknown>;
  isMfaRequired?: boolean;
  color?: OrganizationColor;
  branding?: OrganizationBranding;
  customCss?: string | null;
};

export interface JitEmailDomain {
  organizationId: string;
  emailDomain: string;
}

export type RoleSummary = Pick<OrganizationRole, 'id' | 'name'>;

/** A membership change and the organization it happened in (the event's `data`). */
export interface MembershipUpdate {
  organization: Organization;
  changes: MembershipChanges;
}

/**
 * States a membership change: Organization.Membership.Updated with the organization as `data`, its id and the
 * non-empty delta lists as top-level fields; a change that changed nothing states nothing.
 */
export function membershipChanged(
  emit: EmitData,
  organization: Organization,
  changes: Partial<MembershipChanges>,
): MembershipUpdate {
  const full = { addedUserIds: [], removedUserIds: [], addedApplicationIds: [], removedApplicationIds: [], ...changes };
  const delta = Object.fromEntries(Object.entries(full).filter(([, ids]) => ids.length > 0));
  if (Object.keys(delta).length > 0) {
    emit('Organization.Membership.Updated', { data: organization, organizationId: organization.id, ...delta });
  }
  return { organization, changes: full };
}

type OrganizationsDeps = {
  organizations: OrganizationsRepository;
  organizationRoles: OrganizationRolesRepository;
  organizationScopes: OrganizationScopesRepository;
  organizationInvitations: OrganizationInvitationsRepository;
  users: UsersRepository;
  applications: ApplicationsRepository;
  emit: EmitData;
};

/** Organizations with their members (users and M2M applications) and the members' organization roles. */
export function createOrganizationsLibrary(deps: OrganizationsDeps) {
  const { organizations, organizationRoles, organizationInvitations, users, applications, emit } = deps;
  const update = (organization: Organization, changes: Partial<MembershipChanges>) =>
    membershipChanged(emit, organization, changes);

  async function mustFind(id: string): Promise<Organization> {
    const organization = await organizations.findById(id);
    if (!organization) throw errors.notFound('organization', id);
    return organization;
  }

  /** The organization a relation is added to: one that does not exist is Logto's 422, as a relation naming nothing. */
  async function mustFindToRelate(id: string): Promise<Organization> {
    const organization = await organizations.findById(id);
    if (!organization) throw errors.relationNotFound('organization', id);
    return organization;
  }

  async function assertUsersExist(userIds: readonly string[]): Promise<void> {
    assertAllFound('user', userIds, await users.findByIds([...new Set(userIds)]), { relation: true });
  }

  async function assertApplicationsAllowed(applicationIds: readonly string[]): Promise<void> {
    const found: Application[] = [];
    for (const id of new Set(applicationIds)) {
      const app = await applications.findById(id);
      if (app) found.push(app);
    }
    assertAllFound('application', applicationIds, found, { relation: true });
    if (found.some((app) => app.type !== 'MachineToMachine')) {
      throw errors.unprocessable(
        'organization.application_type_not_allowed',
        'only MachineToMachine applications can join organizations',
      );
    }
  }

  async function assertMember(organizationId: string, userId: string): Promise<void> {
    await mustFind(organizationId);
    if (!(await organizations.users.has({ organizationId }, userId))) {
      throw errors.unprocessable(
        'organization.require_membership',
        `user ${userId} is not a member of organization ${organizationId}`,
      );
    }
  }

  async function assertMemberRoles(organizationRoleIds: readonly string[]): Promise<void> {
    const found = await organizationRoles.findByIds([...new Set(organizationRoleIds)]);
    assertAllFound('organization role', organizationRoleIds, found, { relation: true });
    if (found.some((role) => role.type !== 'User')) {
      throw errors.unprocessable(
        'organization.role_type_mismatch',
        'only User organization roles can be assigned to users',
      );
    }
  }

  /** Member user → their organization roles (id and name), for the users listed. */
  async function rolesByMember(
    organizationId: string,
    userIds: readonly string[],
  ): Promise<Map<string, RoleSummary[]>> {
    const links = await organizations.userRoles.where({ organizationId, userId: userIds });
    const roles = await organizationRoles.findByIds([...new Set(links.map((link) => link.organizationRoleId!))]);
    const byUser = new Map<string, RoleSummary[]>(userIds.map((id) => [id, []]));
    for (const link of links) {
      const role = roles.find((candidate) => candidate.id === link.organizationRoleId);
      if (role) byUser.get(link.userId!)?.push({ id: role.id, name: role.name });
    }
    // Logto lists a member's roles by name.
    for (const held of byUser.values()) held.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return byUser;
  }

  async function removeMemberRoles(organizationId: string, userIds: readonly string[]): Promise<void> {
    if (userIds.length) await organizations.userRoles.removeWhere({ organizationId, userId: userIds });
  }

  const memberAccess = createMemberAccess(deps, mustFind);

  return {
    ...memberAccess,
    mustFind,
    /** The organization, or null (an authorization request's `organization_id` may name none). */
    findById: (id: string) => organizations.findById(id),
    /** A page of organizations; with `showFeatured`, each with its member count and first members. */
    async list(page: Page, search: SearchInput, showFeatured: boolean) {
      const listed = await organizations.list(page, search);
      return showFeatured ? { items: await withFeaturedMembers(deps, listed.items), total: listed.total } : listed;
    },
    assertMember,
    async create(input: OrganizationInput & { name: string }): Promise<Organization> {
      const created = await organizations.insert({
        id: newId(),
        name: input.name,
        description: input.description ?? null,
        customData: input.customData ?? {},
        isMfaRequired: input.isMfaRequired ?? false,
        color: input.color ?? {},
        branding: input.branding ?? {},
        customCss: input.customCss ?? null,
        createdAt: Date.now(),
      });
      emit('Organization.Created', { data: created });
      return created;
    },
    async update(id: string, changes: OrganizationInput): Promise<Organization> {
      await mustFind(id);
      const updated = (await organizations.update(id, changes)) ?? (await mustFind(id));
      emit('Organization.Data.Updated', { data: updated });
      return updated;
    },
    /** Deletes the organization after what hangs off it (children first, so a retry finishes a failed delete). */
    async delete(id: string): Promise<Organization> {
      await mustFind(id);
      await organizationInvitations.deleteOfOrganization(id);
      await organizations.removeRelationsOf(id);
      const deleted = await organizations.delete(id);
      if (!deleted) throw errors.notFound('organization', id);
      emit('Organization.Deleted', { data: deleted });
      return deleted;
    },

    /**
     * Members, optionally only those holding `organizationRoleId` there (Logto's filter). Without a search the
     * store cuts the page out of the membership links, so a large organization is never read whole.
     */
    async listUsers(
      id: string,
      page: Page,
      search?: SearchInput,
      organizationRoleId?: string,
    ): Promise<PageResult<User & { organizationRoles: RoleSummary[] }>> {
      await mustFind(id);
      const byRole = organizationRoleId !== undefined;
      async function membersPage(): Promise<PageResult<User>> {
        const { values, total } = byRole
          ? await organizations.userRoles.page(
              { organizationId: id, organizationRoleId: organizationRoleId! },
              page,
              'userId',
            )
          : await organizations.users.page({ organizationId: id }, page);
        const found = new Map((await users.findByIds(values)).map((user) => [user.id, user]));
        return { items: values.map((userId) => found.get(userId)).filter((user) => user !== undefined), total };
      }
      async function searchMembers(): Promise<PageResult<User>> {
        // A search needs the users' fields: the members' ids narrow it (no join in the store port).
        const ids = byRole
          ? (await organizations.userRoles.where({ organizationId: id, organizationRoleId: organizationRoleId! })).map(
              (link) => link.userId!,
            )
          : await organizations.users.targetsOf({ organizationId: id });
        return users.list(page, { ids, search });
      }
      const { items, total } = search ? await searchMembers() : await membersPage();
      const roles = await rolesByMember(
        id,
        items.map((user) => user.id),
      );
      return { items: items.map((user) => ({ ...user, organizationRoles: roles.get(user.id) ?? [] })), total };
    },
    async addUsers(id: string, userIds: readonly string[]): Promise<MembershipUpdate> {
      const organization = await mustFindToRelate(id);
      await assertUsersExist(userIds);
      return update(organization, { addedUserIds: await organizations.users.add({ organizationId: id }, userIds) });
    },
    async replaceUsers(id: string, userIds: readonly string[]): Promise<MembershipUpdate> {
      const organization = await mustFindToRelate(id);
      await assertUsersExist(userIds);
      const { added, removed } = await organizations.users.replace({ organizationId: id }, userIds);
      await removeMemberRoles(id, removed);
      return update(organization, { addedUserIds: added, removedUserIds: removed });
    },
    async removeUser(id: string, userId: string): Promise<MembershipUpdate> {
      const organization = await mustFind(id);
      if (!(await organizations.users.remove({ organizationId: id }, userId))) {
        throw errors.notLinked('organization member', userId);
      }
      await removeMemberRoles(id, [userId]);
      return update(organization, { removedUserIds: [userId] });
    },

    /** Member applications; `search` (Logto's `q`) as `GET /applications` searches. */
    async listApplications(id: string, page: Page, search?: SearchInput): Promise<PageResult<Application>> {
      await mustFind(id);
      const ids = await organizations.applications.targetsOf({ organizationId: id });
      if (search) return applications.list(page, { ids, search });
      const start = (page.page - 1) * page.pageSize;
      const items: Application[] = [];
      for (const appId of ids.slice(start, start + page.pageSize)) {
        const app = await applications.findById(appId);
        if (app) items.push(app);
      }
      return { items, total: ids.length };
    },
    async addApplications(id: string, applicationIds: readonly string[]): Promise<MembershipUpdate> {
      const organization = await mustFindToRelate(id);
      await assertApplicationsAllowed(applicationIds);
      const added = await organizations.applications.add({ organizationId: id }, applicationIds);
      return update(organization, { addedApplicationIds: added });
    },
    async replaceApplications(id: string, applicationIds: readonly string[]): Promise<MembershipUpdate> {
      const organization = await mustFindToRelate(id);
      await assertApplicationsAllowed(applicationIds);
      const { added, removed } = await organizations.applications.replace({ organizationId: id }, applicationIds);
      await memberAccess.removeApplicationRolesOf(id, removed);
      return update(organization, { addedApplicationIds: added, removedApplicationIds: removed });
    },
    async removeApplication(id: string, applicationId: string): Promise<MembershipUpdate> {
      const organization = await mustFind(id);
      if (!(await organizations.applications.remove({ organizationId: id }, applicationId))) {
        throw errors.notLinked('organization application', applicationId);
      }
      await memberAccess.removeApplicationRolesOf(id, [applicationId]);
      return update(organization, { removedApplicationIds: [applicationId] });
    },

    async memberRoles(id: string, userId: string): Promise<OrganizationRole[]> {
      await assertMember(id, userId);
      return organizationRoles.findByIds(await organizations.userRoles.targetsOf({ organizationId: id, userId }));
    },
    async assignMemberRoles(id: string, userId: string, organizationRoleIds: readonly string[]): Promise<void> {
      await assertMember(id, userId);
      await assertMemberRoles(organizationRoleIds);
      await organizations.userRoles.add({ organizationId: id, userId }, organizationRoleIds);
    },
    async replaceMemberRoles(id: string, userId: string, organizationRoleIds: readonly string[]): Promise<void> {
      await assertMember(id, userId);
      await assertMemberRoles(organizationRoleIds);
      await organizations.userRoles.replace({ organizationId: id, userId }, organizationRoleIds);
    },
    async removeMemberRole(id: string, userId: string, organizationRoleId: string): Promise<void> {
      await assertMember(id, userId);
      if (!(await organizations.userRoles.remove({ organizationId: id, userId }, organizationRoleId))) {
        throw errors.notLinked('organization role assignment', organizationRoleId);
      }
    },

    async jitEmailDomains(id: string, page: Page): Promise<PageResult<JitEmailDomain>> {
      await mustFind(id);
      const domains = await organizations.jitEmailDomains.targetsOf({ organizationId: id });
      const start = (page.page - 1) * page.pageSize;
      const items = domains
        .slice(start, start + page.pageSize)
        .map((emailDomain) => ({ organizationId: id, emailDomain }));
      return { items, total: domains.length };
    },
    async addJitEmailDomain(id: string, emailDomain: string): Promise<JitEmailDomain> {
      await mustFind(id);
      const added = await organizations.jitEmailDomains.add({ organizationId: id }, [emailDomain]);
      if (added.length === 0) throw errors.duplicate('organization JIT email domain', 'emailDomain');
      return { organizationId: id, emailDomain };
    },
    async replaceJitEmailDomains(id: string, emailDomains: readonly string[]): Promise<void> {
      await mustFind(id);
      await organizations.jitEmailDomains.replace({ organizationId: id }, emailDomains);
    },
    async removeJitEmailDomain(id: string, emailDomain: string): Promise<void> {
      await mustFind(id);
      if (!(await organizations.jitEmailDomains.remove({ organizationId: id }, emailDomain))) {
        throw errors.notLinked('organization JIT email domain', emailDomain);
      }
    },

    /** The organizations a user belongs to, each with the user's organization roles there. */
    async organizationsOfUser(userId: string): Promise<Array<Organization & { organizationRoles: RoleSummary[] }>> {
      const memberships = await organizations.users.where({ userId });
      const found = await organizations.findByIds(memberships.map((link) => link.organizationId!));
      const result: Array<Organization & { organizationRoles: RoleSummary[] }> = [];
      for (const organization of found) {
        const roles = await rolesByMember(organization.id, [userId]);
        result.push({ ...organization, organizationRoles: roles.get(userId) ?? [] });
      }
      return result;
    },
  };
}
