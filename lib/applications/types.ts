/** The kinds of application, as Logto names them. */
export const APPLICATION_TYPES = ['MachineToMachine', 'Traditional', 'SPA', 'Native'] as const;
export type ApplicationType = (typeof APPLICATION_TYPES)[number];

/** Applications that hold a secret: they authenticate at the token endpoint. */
export function isConfidential(type: ApplicationType): boolean {
  return type === 'MachineToMachine' || type === 'Traditional';
}
