import type Router from '@koa/router';
import type { Middleware } from 'koa';
import type { Experience } from '../../lib/experience/index.ts';
import { forgotPasswordPage } from './account-pages.ts';
import { codeFlowRoutes, type CodeFlow } from './code-flow.ts';
import type { PageKit } from './kit.ts';

/**
 * A forgotten password, through the experience library: a code to the account's email address or phone
 * number identifies the account, the new password is set under the policy, and the submission decides where
 * the browser goes next (the sign-in page of the same interaction, told that the password changed).
 */
export function forgotPasswordRoutes(router: Router, form: Middleware, kit: PageKit, experience: Experience): void {
  router.get('/:uid/forgot-password', async (ctx) => {
    const visit = await kit.visit(ctx);
    // No reset method allowed (forgotPasswordMethods: []): back to the sign-in page, which offers none.
    if (visit.details.prompt.name !== 'login' || visit.methods.forgotPassword.length === 0) {
      kit.redirect(ctx, visit.at());
      return;
    }
    kit.send(ctx, 200, forgotPasswordPage(visit), visit);
  });

  const flow: CodeFlow = {
    path: '/forgot-password',
    event: 'ForgotPassword',
    recipients: (visit) => visit.methods.forgotPassword,
    startPage: (visit, problem, identifier) => forgotPasswordPage({ ...visit, problem, identifier }),
    startUrl: (visit) => visit.at('/forgot-password'),
    view: (visit) => ({
      heading: 'Reset your password',
      submit: 'Reset password',
      password: { policy: visit.settings.passwordPolicy, label: 'New password' },
      back: { href: visit.at('/forgot-password'), label: 'Use another address' },
    }),
    async finish(ctx, visit, state, pending, password) {
      if (!state.userId) await experience.identify(visit.request, pending.id);
      await experience.resetPassword(visit.request, password);
      const { redirectTo } = await experience.submit(visit.request);
      kit.redirect(ctx, redirectTo === visit.at() ? `${redirectTo}?notice=password-reset` : redirectTo);
    },
  };
  codeFlowRoutes(router, form, kit, experience, flow);
}
