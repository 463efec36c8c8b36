export const ORGANIZATION_ROLE_TYPES = ['User', 'MachineToMachine'] as const;
export type OrganizationRoleType = (typeof ORGANIZATION_ROLE_TYPES)[number];

export const INVITATION_STATUSES = ['Pending', 'Accepted', 'Expired', 'Revoked'] as const;
export type InvitationStatus = (typeof INVITATION_STATUSES)[number];
