import type { PageModule } from '../../pages.ts';
import { RoleList } from './list.tsx';
import { RoleDetails } from './details.tsx';

export const rolesPage: PageModule = {
  id: 'roles',
  title: 'Roles and permissions',
  routes: { '': RoleList, ':id': RoleDetails },
};
