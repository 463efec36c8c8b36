import type { PageModule } from '../../pages.ts';
import { ImpersonationList } from './list.tsx';

export const impersonationsPage: PageModule = {
  id: 'impersonations',
  title: 'Impersonations',
  routes: { '': ImpersonationList },
};
