import type Router from '@koa/router';
import type { Middleware } from 'koa';
import type { Experience } from '../../lib/experience/index.ts';
import type { PageKit, Visit } from './kit.ts';
import { form, page, type Field, type FormProblem } from './layout.ts';
import { newPasswordField, newUsernameField, usernameProblem } from './sign-in-pages.ts';

/** What the profile step asks for; an email or phone the account must add stays on the page that names it. */
export const COLLECTED = ['username', 'password'] as const;
type Collected = (typeof COLLECTED)[number];

/** The fields of `?missing=` this step collects, in its order. */
function missingOf(value: unknown): Collected[] {
  const named = typeof value === 'string' ? value.split(',') : [];
  return COLLECTED.filter((field) => named.includes(field));
}

function profilePage(visit: Visit, missing: Collected[], problem?: FormProblem, typed: { username?: string } = {}) {
  const fields: Field[] = [];
  if (missing.includes('username')) fields.push(newUsernameField(typed.username));
  if (missing.includes('password')) fields.push(newPasswordField(visit.settings.passwordPolicy));
  return page({
    title: 'Complete your account',
    heading: 'Complete your account',
    branding: visit.branding,
    problem,
    body: `<p>Every ${visit.branding.appName} account needs ${missing.includes('username') ? 'a username' : 'a password'}${missing.length > 1 ? ' and a password' : ''}.</p>
${form({
  id: 'profile',
  action: visit.at(`/profile?missing=${missing.join(',')}`),
  csrf: visit.csrf,
  submit: 'Continue',
  problem,
  autofocus: true,
  fields,
})}`,
  });
}

/**
 * The step a registration or sign-in stopped by the sign-up settings (422 `user.missing_profile`) is sent to
 * when what it lacks is a username or a password: it adds them to the experience's profile, then identifies the
 * registration again (through the identity it was refused for, when it came from a connector) or submits.
 */
export function profileRoutes(router: Router, form: Middleware, kit: PageKit, experience: Experience): void {
  router.get('/:uid/profile', async (ctx) => {
    const visit = await kit.atLoginPrompt(ctx);
    if (!visit) return;
    const missing = missingOf(ctx.query.missing);
    if (!missing.length) {
      kit.redirect(ctx, visit.at());
      return;
    }
    kit.send(ctx, 200, profilePage(visit, missing), visit);
  });

  router.post('/:uid/profile', form, async (ctx) => {
    const visit = await kit.submitted(ctx);
    if (!visit) return;
    const missing = missingOf(ctx.query.missing);
    const username = kit.field(ctx, 'username', { max: 128 });
    const password = kit.field(ctx, 'password', { max: 256, trim: false });
    const again = (problem: FormProblem) => profilePage(visit, missing, problem, { username });
    const refused = missing.includes('username') ? usernameProblem(username) : undefined;
    if (refused) {
      kit.reject(ctx, visit, again(refused));
      return;
    }
    if (missing.includes('password') && !password) {
      kit.reject(ctx, visit, again({ field: 'password', message: 'Choose a password.' }));
      return;
    }
    await kit.attempt(
      ctx,
      visit,
      (failure) => again(failure.problem),
      async () => {
        if (missing.includes('username'))
          await experience.addProfile(visit.request, { type: 'username', value: username });
        if (missing.includes('password'))
          await experience.addProfile(visit.request, { type: 'password', value: password });
        const state = await experience.state(visit.request);
        if (state.interactionEvent === 'Register' && !state.userId) await experience.identify(visit.request);
        await kit.finish(ctx, visit);
      },
    );
  });
}
