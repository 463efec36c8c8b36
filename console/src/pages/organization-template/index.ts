import type { PageModule } from '../../pages.ts';
import { OrganizationTemplate } from './template.tsx';
import { OrganizationRoleDetails } from './role.tsx';

export const organizationTemplatePage: PageModule = {
  id: 'organization-template',
  title: 'Organization template',
  routes: { '': OrganizationTemplate, 'roles/:id': OrganizationRoleDetails },
};
