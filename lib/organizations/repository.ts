import type { DocumentStore } from '../ports/documents.ts';
import { createEntityRepository } from '../data/entity.ts';
import { createLinks } from '../data/links.ts';

export interface Organization {
  id: string;
  name: string;
  description: string | null;
  customData: Record<string, unknown>;
  isMfaRequired: boolean;
  /** Logto's organization branding (colors, logos, a style sheet), shown on the sign-in pages of an authorization request naming the organization (`organization_id`). */
  color?: OrganizationColor;
  branding?: OrganizationBranding;
  customCss?: string | null;
  createdAt: number;
}

export interface OrganizationColor {
  primaryColor?: string;
  isDarkModeEnabled?: boolean;
  darkPrimaryColor?: string;
}

export interface OrganizationBranding {
  logoUrl?: string;
  darkLogoUrl?: string;
}

/** Organizations and what hangs off them: member users and applications, member roles, JIT email domains and roles. */
export function createOrganizationsRepository(store: DocumentStore) {
  const { collection, operations } = createEntityRepository<Organization>(store, 'organizations', {
    searchFields: ['id', 'name', 'description'],
  });
  const relations = {
    users: createLinks(store, 'organizations_users', ['organizationId'], 'userId'),
    applications: createLinks(store, 'organizations_applications', ['organizationId'], 'applicationId'),
    /** Organization roles of a member, per organization. */
    userRoles: createLinks(store, 'organizations_users_roles', ['organizationId', 'userId'], 'organizationRoleId'),
    /** Organization roles of a member application, per organization. */
    applicationRoles: createLinks(
      store,
      'organizations_applications_roles',
      ['organizationId', 'applicationId'],
      'organizationRoleId',
    ),
    jitEmailDomains: createLinks(store, 'organizations_jit_email_domains', ['organizationId'], 'emailDomain'),
    /** Organization roles a user gets when joining just in time. */
    jitRoles: createLinks(store, 'organizations_jit_roles', ['organizationId'], 'organizationRoleId'),
    /** Enterprise SSO connectors whose users join just in time. */
    jitSsoConnectors: createLinks(store, 'organizations_jit_sso_connectors', ['organizationId'], 'ssoConnectorId'),
  };

  return {
    ...operations,
    ...relations,
    async prepare() {
      await collection.createIndex({ keys: { createdAt: 1 } });
      for (const relation of Object.values(relations)) await relation.prepare();
    },
    /** Removes every relation the organization owns (members, member roles, applications, JIT domains and roles). */
    async removeRelationsOf(organizationId: string): Promise<void> {
      for (const relation of Object.values(relations)) await relation.removeWhere({ organizationId });
    },
    /** Forgets a user in every organization: memberships and member roles. */
    async removeUserEverywhere(userId: string): Promise<void> {
      await relations.users.removeWhere({ userId });
      await relations.userRoles.removeWhere({ userId });
    },
  };
}

export type OrganizationsRepository = ReturnType<typeof createOrganizationsRepository>;
