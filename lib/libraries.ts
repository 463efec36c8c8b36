import { createApplicationsLibrary } from './applications.ts';
import type { Repositories } from './repositories/index.ts';

/** Domain logic above the repositories, shared by routes and extensions. */
export function createLibraries(repositories: Repositories) {
  return {
    applications: createApplicationsLibrary(repositories),
  };
}

export type Libraries = ReturnType<typeof createLibraries>;
