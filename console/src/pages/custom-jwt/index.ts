import type { PageModule } from '../../pages.ts';
import { CustomJwt } from './page.tsx';

export const customJwtPage: PageModule = {
  id: 'custom-jwt',
  title: 'Custom JWT',
  routes: { '': CustomJwt },
};
