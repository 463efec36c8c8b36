import type { PageModule } from '../../pages.ts';
import { UserList } from './list.tsx';
import { UserDetails } from './details.tsx';

export const usersPage: PageModule = {
  id: 'users',
  title: 'Users',
  routes: { '': UserList, ':id': UserDetails },
};
