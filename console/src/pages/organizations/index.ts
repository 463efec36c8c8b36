import type { PageModule } from '../../pages.ts';
import { OrganizationList } from './list.tsx';
import { OrganizationDetails } from './details.tsx';

export const organizationsPage: PageModule = {
  id: 'organizations',
  title: 'Organizations',
  routes: { '': OrganizationList, ':id': OrganizationDetails },
};
