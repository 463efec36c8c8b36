export const ROLE_TYPES = ['User', 'MachineToMachine'] as const;
export type RoleType = (typeof ROLE_TYPES)[number];
