import type Router from '@koa/router';
import type { Middleware } from 'koa';
import type { Experience } from '../../lib/experience/index.ts';
import { codeFlowRoutes, type CodeFlow } from './code-flow.ts';
import type { PageKit, Visit } from './kit.ts';
import type { FormProblem } from './layout.ts';
import { isProblem, parseIdentifier } from './methods.ts';
import { signInPage } from './sign-in-pages.ts';
import { answerSsoChoice } from './connectors.ts';

const NOTICES: Record<string, string> = {
  'password-reset': 'Your password was changed. Sign in with the new one.',
};

/** The sign-in page itself, with a notice the previous step left (`?notice=`). */
export function signInPageOf(visit: Visit, notice?: string): string {
  return signInPage({ ...visit, notice: notice ? NOTICES[notice] : undefined });
}

/**
 * Sign-in through the experience library, as the Experience API does it: `POST /:uid/login` verifies a
 * password, the code flow under `/:uid/sign-in` a code; both identify the account and submit.
 */
export function signInRoutes(router: Router, form: Middleware, kit: PageKit, experience: Experience): void {
  router.post('/:uid/login', form, async (ctx) => {
    const visit = await kit.submitted(ctx);
    if (!visit) return;
    const identifier = kit.field(ctx, 'identifier');
    const password = kit.field(ctx, 'password', { max: 256, trim: false });
    const again = (problem: FormProblem) => signInPage({ ...visit, failed: 'password', problem, identifier });
    const typed = parseIdentifier(identifier, visit.methods.password);
    if (isProblem(typed)) {
      kit.reject(ctx, visit, again(typed));
      return;
    }
    // An email of a domain that signs in by SSO goes to its provider, as Logto's sign-in does.
    if (typed.type === 'email' && (await answerSsoChoice(ctx, kit, visit, typed.value))) return;
    if (!password) {
      kit.reject(ctx, visit, again({ field: 'password', message: 'Enter your password.' }));
      return;
    }
    await kit.attempt(
      ctx,
      visit,
      (failure) => again(failure.problem),
      async () => {
        await experience.start(visit.request, 'SignIn');
        const { verificationId } = await experience.verifyPassword(visit.request, typed, password);
        await experience.identify(visit.request, verificationId);
        await kit.finish(ctx, visit);
      },
    );
  });

  const flow: CodeFlow = {
    path: '/sign-in',
    event: 'SignIn',
    recipients: (visit) => visit.methods.code,
    startPage: (visit, problem, identifier) => signInPage({ ...visit, failed: 'code', problem, identifier }),
    startUrl: (visit) => visit.at(),
    view: (visit) => ({
      heading: `Sign in to ${visit.branding.appName}`,
      submit: 'Sign in',
      back: { href: visit.at(), label: 'Sign in another way' },
    }),
    // An address without an account, where sign-up is open: the page offers to create one.
    problemOf: (visit, failure) =>
      failure.code === 'user.user_not_exist' && visit.methods.canRegister
        ? { ...failure.problem, link: { href: visit.at('/sign-up'), label: 'Create account' } }
        : failure.problem,
    async finish(ctx, visit, _state, pending) {
      await experience.identify(visit.request, pending.id);
      await kit.finish(ctx, visit);
    },
  };
  codeFlowRoutes(router, form, kit, experience, flow);
}
