import type { Application as StoredApplication } from '../../../../lib/applications/repository.ts';
import type { ApplicationType } from '../../../../lib/applications/types.ts';

export type { ApplicationType };

export const APPLICATION_TYPES: ReadonlyArray<{ value: ApplicationType; label: string }> = [
  { value: 'Traditional', label: 'Traditional web (confidential)' },
  { value: 'SPA', label: 'Single-page app (public)' },
  { value: 'Native', label: 'Native app (public)' },
  { value: 'MachineToMachine', label: 'Machine-to-machine (confidential)' },
];

/** An application as the management API answers it; its secret only in the answer that creates it. */
export type Application = StoredApplication & { secret?: string };

export const typeLabel = (type: ApplicationType) =>
  APPLICATION_TYPES.find((entry) => entry.value === type)?.label ?? type;
export const isConfidential = (type: ApplicationType) => type === 'Traditional' || type === 'MachineToMachine';
