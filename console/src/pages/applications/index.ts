import type { PageModule } from '../../pages.ts';
import { ApplicationList } from './list.tsx';
import { ApplicationDetails } from './details.tsx';

export const applicationsPage: PageModule = {
  id: 'applications',
  title: 'Applications',
  routes: { '': ApplicationList, ':id': ApplicationDetails },
};
