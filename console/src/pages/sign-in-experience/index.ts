import type { PageModule } from '../../pages.ts';
import { SignInExperiencePage } from './page.tsx';

export const signInExperiencePage: PageModule = {
  id: 'sign-in-experience',
  title: 'Sign-in experience',
  routes: { '': SignInExperiencePage },
};
