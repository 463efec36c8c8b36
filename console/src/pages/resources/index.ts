import type { PageModule } from '../../pages.ts';
import { ResourceList } from './list.tsx';
import { ResourceDetails } from './details.tsx';

export const resourcesPage: PageModule = {
  id: 'resources',
  title: 'API resources',
  routes: { '': ResourceList, ':id': ResourceDetails },
};
