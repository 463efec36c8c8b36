import type { RunningService } from './service.ts';

/** What Logto seeds in a new tenant and the suites take for granted, created through the management API. */
export async function provision(service: RunningService): Promise<void> {
  await service.managementToken();
}
