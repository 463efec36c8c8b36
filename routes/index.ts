import type { ApiRouterDeps } from '../lib/http/api.ts';
import type { ServiceCore } from '../lib/core.ts';
import { applicationRoutes } from './applications/index.ts';
import { resourceRoutes } from './resources/index.ts';
import { roleRoutes } from './roles/index.ts';

/** The identity-data management routes (applications, resources, roles, users, organizations, …). */
export function managementRoutes(api: ApiRouterDeps, core: ServiceCore): void {
  applicationRoutes(api, core);
  resourceRoutes(api, core);
  roleRoutes(api, core);
}
