import type { PageModule } from '../../pages.ts';
import { ImpersonationLog } from './list.tsx';

export const impersonationLogPage: PageModule = {
  id: 'impersonation-log',
  title: 'Impersonation log',
  routes: { '': ImpersonationLog },
};
