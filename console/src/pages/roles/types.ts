import type { Role as StoredRole } from '../../../../lib/roles/repository.ts';
import type { RoleType } from '../../../../lib/roles/types.ts';

export type { RoleType };

export const ROLE_TYPES: ReadonlyArray<{ value: RoleType; label: string }> = [
  { value: 'User', label: 'User role' },
  { value: 'MachineToMachine', label: 'Machine-to-machine role' },
];

/** A role as the management API answers it; lists count who holds it. */
export type Role = StoredRole & { usersCount?: number; applicationsCount?: number };

export const roleTypeLabel = (type: RoleType) => ROLE_TYPES.find((entry) => entry.value === type)?.label ?? type;
