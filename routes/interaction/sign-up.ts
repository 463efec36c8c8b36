import type Router from '@koa/router';
import type { Middleware } from 'koa';
import type { Experience } from '../../lib/experience/index.ts';
import { messagePage } from '../../lib/http/html.ts';
import { signUpPage } from './account-pages.ts';
import { codeFlowRoutes, type CodeFlow } from './code-flow.ts';
import type { PageKit, Visit } from './kit.ts';
import type { FormProblem } from './layout.ts';
import { usernameProblem } from './sign-in-pages.ts';

/**
 * Registration through the experience library, in the order the Experience API takes it: the profile
 * (username or verified email/phone, then the password under the policy), identification, which creates the
 * account, then submission.
 */
export function signUpRoutes(router: Router, form: Middleware, kit: PageKit, experience: Experience): void {
  const pageOf = (visit: Visit, problem?: FormProblem, typed: { username?: string; identifier?: string } = {}) =>
    signUpPage({ ...visit, policy: visit.settings.passwordPolicy, problem, ...typed });

  /** Registration is off: a page that says so, with the way back. */
  function closed(visit: Visit): string {
    return messagePage(
      'Registration is not available',
      'New accounts cannot be created here. Sign in with an existing account.',
      { href: visit.at(), label: 'Back to sign in' },
    );
  }

  router.get('/:uid/sign-up', async (ctx) => {
    const visit = await kit.visit(ctx);
    if (visit.details.prompt.name !== 'login') {
      kit.redirect(ctx, visit.at());
      return;
    }
    if (!visit.methods.canRegister) {
      kit.send(ctx, 403, closed(visit), visit);
      return;
    }
    kit.send(ctx, 200, pageOf(visit), visit);
  });

  router.post('/:uid/sign-up', form, async (ctx) => {
    const visit = await kit.submitted(ctx);
    if (!visit) return;
    if (visit.methods.signUp?.by !== 'username' || !visit.methods.canRegister) {
      kit.redirect(ctx, visit.at('/sign-up'));
      return;
    }
    const username = kit.field(ctx, 'username', { max: 128 });
    const password = kit.field(ctx, 'password', { max: 256, trim: false });
    const again = (problem: FormProblem) => pageOf(visit, problem, { username });
    const refused = usernameProblem(username);
    if (refused) {
      kit.reject(ctx, visit, again(refused));
      return;
    }
    if (!password) {
      kit.reject(ctx, visit, again({ field: 'password', message: 'Choose a password.' }));
      return;
    }
    await kit.attempt(
      ctx,
      visit,
      (failure) => again(failure.problem),
      async () => {
        await experience.start(visit.request, 'Register');
        await experience.addProfile(visit.request, { type: 'username', value: username });
        await experience.addProfile(visit.request, { type: 'password', value: password });
        await experience.identify(visit.request);
        await kit.finish(ctx, visit);
      },
    );
  });

  const flow: CodeFlow = {
    path: '/sign-up',
    event: 'Register',
    recipients: (visit) => (visit.methods.signUp?.by === 'code' ? visit.methods.signUp.identifiers : []),
    startPage: (visit, problem, identifier) => pageOf(visit, problem, { identifier }),
    startUrl: (visit) => visit.at('/sign-up'),
    view: (visit) => ({
      heading: `Create your ${visit.branding.appName} account`,
      submit: 'Create account',
      back: { href: visit.at('/sign-up'), label: 'Use another address' },
      ...(visit.settings.signUp.password && { password: { policy: visit.settings.passwordPolicy, label: 'Password' } }),
    }),
    problemOf: (visit, failure) =>
      failure.code === 'user.email_already_in_use' || failure.code === 'user.phone_already_in_use'
        ? { ...failure.problem, link: { href: visit.at(), label: 'Sign in instead' } }
        : failure.problem,
    async finish(ctx, visit, state, pending, password) {
      const { profile } = state;
      if (!profile.primaryEmail && !profile.primaryPhone) {
        await experience.addProfile(visit.request, {
          type: pending.identifier.type === 'phone' ? 'phone' : 'email',
          verificationId: pending.id,
        });
      }
      if (visit.settings.signUp.password)
        await experience.addProfile(visit.request, { type: 'password', value: password });
      await experience.identify(visit.request);
      await kit.finish(ctx, visit);
    },
  };
  codeFlowRoutes(router, form, kit, experience, flow);
}
