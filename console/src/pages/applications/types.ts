export const APPLICATION_TYPES = [
  { value: 'Traditional', label: 'Traditional web (confidential)' },
  { value: 'SPA', label: 'Single-page app (public)' },
  { value: 'Native', label: 'Native app (public)' },
  { value: 'MachineToMachine', label: 'Machine-to-machine (confidential)' },
] as const;
export type ApplicationType = (typeof APPLICATION_TYPES)[number]['value'];

export interface Application {
  id: string;
  name: string;
  description: string | null;
  type: ApplicationType;
  oidcClientMetadata: { redirectUris: string[]; postLogoutRedirectUris: string[]; logoUri?: string };
  customClientMetadata: Record<string, unknown> & { allowTokenExchange?: boolean; maxAllowedGrants?: number };
  isThirdParty: boolean;
  createdAt: number;
  secret?: string;
}

export const typeLabel = (type: ApplicationType) => APPLICATION_TYPES.find((entry) => entry.value === type)?.label ?? type;
export const isConfidential = (type: ApplicationType) => type === 'Traditional' || type === 'MachineToMachine';
