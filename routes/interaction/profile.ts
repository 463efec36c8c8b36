import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import type { Experience } from '../../lib/experience/index.ts';
import { codeStepRoutes, type PendingCode } from './code-flow.ts';
import { failureOf } from './form-errors.ts';
import type { PageKit, Visit } from './kit.ts';
import { form, page, type Field, type FormProblem } from './layout.ts';
import { identifierField, isProblem, parseRecipient, type CodeIdentifierType } from './methods.ts';
import { newPasswordField, newUsernameField, usernameProblem } from './sign-in-pages.ts';

/** What the profile step asks for (the names of `user.missing_profile`), as the page names it. */
const NAMES = {
  username: 'a username',
  password: 'a password',
  email: 'an email address',
  phone: 'a phone number',
  emailOrPhone: 'an email address or a phone number',
} as const;
type Missing = keyof typeof NAMES;
export const COLLECTED = Object.keys(NAMES) as readonly Missing[];

/** Where each missing contact may be: an email or phone is proved by a code sent to it before the profile takes it. */
const CONTACTS: Partial<Record<Missing, CodeIdentifierType[]>> = {
  email: ['email'],
  phone: ['phone'],
  emailOrPhone: ['email', 'phone'],
};

/** The fields of `?missing=` this step knows, in its order. */
function missingOf(value: unknown): Missing[] {
  const named = typeof value === 'string' ? value.split(',') : [];
  return COLLECTED.filter((field) => named.includes(field));
}

/** The contact this page asks for: one at a time, so an account that needs both an email and a phone proves each in turn. */
function contactOf(missing: Missing[]): { name: Missing; types: CodeIdentifierType[] } | undefined {
  const name = missing.find((field) => CONTACTS[field]);
  return name ? { name, types: CONTACTS[name]! } : undefined;
}

const IN_USE: ReadonlySet<string> = new Set(['user.email_already_in_use', 'user.phone_already_in_use']);

function listed(names: string[]): string {
  return names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : (names[0] ?? '');
}

function profilePage(
  visit: Visit,
  missing: Missing[],
  problem?: FormProblem,
  typed: { username?: string; identifier?: string } = {},
) {
  const contact = contactOf(missing);
  const fields: Field[] = [];
  if (missing.includes('username')) fields.push(newUsernameField(typed.username));
  if (missing.includes('password')) fields.push(newPasswordField(visit.settings.passwordPolicy));
  if (contact) fields.push({ ...identifierField(contact.types, typed.identifier), hint: 'We will send a code to it.' });
  return page({
    title: 'Complete your account',
    heading: 'Complete your account',
    branding: visit.branding,
    problem,
    body: `<p>Every ${visit.branding.appName} account needs ${listed(missing.map((field) => NAMES[field]))}.</p>
${form({
  id: 'profile',
  action: visit.at(`/profile?missing=${missing.join(',')}`),
  csrf: visit.csrf,
  submit: contact ? 'Send code' : 'Continue',
  problem,
  autofocus: true,
  fields,
})}`,
  });
}

/**
 * The step a registration or sign-in stopped by the sign-up settings (422 `user.missing_profile`) is sent to. It
 * adds a username and a password to the experience's profile as typed; an email or phone it sends a code to
 * (`…/profile/code` asks for it) and adds once the code is verified. Then it identifies the registration again
 * (through the identity it was refused for, when it came from a connector) or submits. `?missing=` only chooses
 * the fields shown: the library decides again what the account still lacks, and the address and its code are the
 * experience's own, never the form's.
 */
export function profileRoutes(router: Router, form: Middleware, kit: PageKit, experience: Experience): void {
  async function complete(ctx: Context, visit: Visit): Promise<void> {
    const state = await experience.state(visit.request);
    if (state.interactionEvent === 'Register' && !state.userId) await experience.identify(visit.request);
    await kit.finish(ctx, visit);
  }

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
    const contact = contactOf(missing);
    const username = kit.field(ctx, 'username', { max: 128 });
    const password = kit.field(ctx, 'password', { max: 256, trim: false });
    const identifier = kit.field(ctx, 'identifier');
    const again = (problem: FormProblem) => profilePage(visit, missing, problem, { username, identifier });
    const refused = missing.includes('username') ? usernameProblem(username) : undefined;
    if (refused) {
      kit.reject(ctx, visit, again(refused));
      return;
    }
    if (missing.includes('password') && !password) {
      kit.reject(ctx, visit, again({ field: 'password', message: 'Choose a password.' }));
      return;
    }
    const recipient = contact ? parseRecipient(identifier, contact.types) : undefined;
    if (recipient && isProblem(recipient)) {
      kit.reject(ctx, visit, again(recipient));
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
        if (!recipient) {
          await complete(ctx, visit);
          return;
        }
        const { interactionEvent } = await experience.state(visit.request);
        await experience.sendCode(visit.request, recipient, interactionEvent);
        // What is left for the code step is the contacts: the username and password are in the profile now.
        const contacts = missing.filter((field) => CONTACTS[field]);
        kit.redirect(ctx, visit.at(`/profile/code?missing=${contacts.join(',')}`));
      },
    );
  });

  codeStepRoutes(router, form, kit, experience, {
    path: '/profile',
    // The code the step sent last that is not verified yet (a verified one was added, or refused, at once).
    pendingOf: (state) =>
      state.interactionEvent === 'ForgotPassword'
        ? undefined
        : state.verificationRecords.findLast((record) => record.type !== 'Password' && !record.verified),
    startUrl: (visit, ctx) => visit.at(`/profile?missing=${missingOf(ctx.query.missing).join(',')}`),
    view: (visit, ctx) => ({
      heading: 'Complete your account',
      submit: 'Continue',
      back: {
        href: visit.at(`/profile?missing=${missingOf(ctx.query.missing).join(',')}`),
        label: 'Use another address',
      },
    }),
    async finish(ctx, visit, _state, pending: PendingCode) {
      const type = pending.identifier.type === 'phone' ? 'phone' : 'email';
      try {
        await experience.addProfile(visit.request, { type, verificationId: pending.id });
      } catch (error) {
        // An address another account holds is refused on its field, as the profile page asks for another one.
        const failure = failureOf(error);
        if (!failure || !IN_USE.has(failure.code)) throw error;
        const missing = missingOf(ctx.query.missing);
        const page = profilePage(
          visit,
          missing.length ? missing : [type],
          { ...failure.problem, field: 'identifier' },
          {
            identifier: pending.identifier.value,
          },
        );
        kit.send(ctx, failure.status, page, visit);
        return;
      }
      await complete(ctx, visit);
    },
  });
}
