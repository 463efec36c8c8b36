/** An organization as the management API answers it. */
export type { Organization } from '../../../../lib/organizations/repository.ts';

export interface OrganizationRole {
  id: string;
  name: string;
  description: string | null;
  type: 'User' | 'MachineToMachine';
  createdAt: number;
  scopes?: Array<{ id: string; name: string }>;
  resourceScopes?: Array<{ id: string; name: string; resource: { id: string; name: string } }>;
}

export interface OrganizationScope {
  id: string;
  name: string;
  description: string | null;
  createdAt: number;
}

/** The organization roles a user can hold (machine-to-machine ones are for applications). */
export const userRoles = (roles: OrganizationRole[] | undefined) =>
  (roles ?? []).filter((role) => role.type === 'User');
