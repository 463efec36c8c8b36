import type { ComponentType } from 'preact';
import { applicationsPage } from './pages/applications/index.ts';
import { usersPage } from './pages/users/index.ts';
import { rolesPage } from './pages/roles/index.ts';
import { resourcesPage } from './pages/resources/index.ts';
import { organizationsPage } from './pages/organizations/index.ts';
import { organizationTemplatePage } from './pages/organization-template/index.ts';
import { signInExperiencePage } from './pages/sign-in-experience/index.ts';
import { connectorsPage } from './pages/connectors/index.ts';
import { impersonationLogPage } from './pages/impersonation-log/index.ts';
import { impersonationsPage } from './pages/impersonations/index.ts';
import { webhooksPage } from './pages/webhooks/index.ts';
import { customJwtPage } from './pages/custom-jwt/index.ts';

/**
 * A page of the console: one module per resource. `routes` maps a path below `/<id>` ('' for the list,
 * ':id' for details) to the component rendering it, which receives the path's parameters.
 */
export interface PageModule {
  /** The first path segment (`applications`), also the navigation key. */
  id: string;
  /** The navigation label and the document title. */
  title: string;
  routes: Record<string, ComponentType<{ params: Record<string, string> }>>;
}

/** Every page, in navigation order. Adding a page is adding its module here. */
export const PAGES: PageModule[] = [
  applicationsPage,
  usersPage,
  rolesPage,
  resourcesPage,
  organizationsPage,
  organizationTemplatePage,
  signInExperiencePage,
  connectorsPage,
  impersonationsPage,
  impersonationLogPage,
  webhooksPage,
  customJwtPage,
];
