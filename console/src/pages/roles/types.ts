export const ROLE_TYPES = [
  { value: 'User', label: 'User role' },
  { value: 'MachineToMachine', label: 'Machine-to-machine role' },
] as const;
export type RoleType = (typeof ROLE_TYPES)[number]['value'];

export interface Role {
  id: string;
  name: string;
  description: string;
  type: RoleType;
  isDefault: boolean;
  createdAt: number;
  usersCount?: number;
  applicationsCount?: number;
}

export const roleTypeLabel = (type: RoleType) => ROLE_TYPES.find((entry) => entry.value === type)?.label ?? type;
