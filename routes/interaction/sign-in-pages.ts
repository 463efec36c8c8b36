import { escapeHtml } from '../../lib/http/html.ts';
import type { PasswordPolicy } from '../../lib/sign-in-experience/schema.ts';
import { username as usernameSchema } from '../users/schemas.ts';
import { buttonForm, form, links, page, type Branding, type Field, type FormProblem } from './layout.ts';
import { identifierField, identifierLabel, type PageMethods } from './methods.ts';
import { connectorSection, type ConnectorChoices } from './connector-pages.ts';

/** What every sign-in page knows: the interaction's URLs and CSRF token, and who the user signs in to. */
export interface PageFrame {
  /** The absolute URL of a step of this interaction, e.g. `at('/sign-up')`; `at()` is the sign-in page. */
  at(path?: string): string;
  csrf: string;
  branding: Branding;
  methods: PageMethods;
  /** Social connectors and single sign-on, offered on the sign-in page. */
  connectors?: ConnectorChoices;
  /** Who the application says is signing in (`login_hint`): the identifier fields start with it. */
  loginHint?: string;
}

export interface SignInView extends PageFrame {
  /** The form the problem came from. */
  failed?: 'password' | 'code' | 'sso';
  problem?: FormProblem;
  identifier?: string;
  notice?: string;
}

/**
 * The sign-in page: password and code forms for the methods the sign-in experience enables (the password
 * form first when it is the primary factor), the connectors, then the ways to a new account or a forgotten
 * password.
 */
export function signInPage(view: SignInView): string {
  const { methods, at } = view;
  const problemOf = (which: 'password' | 'code') => (view.failed === which ? view.problem : undefined);
  const prefillOf = (which: 'password' | 'code') =>
    view.failed === which ? view.identifier : view.failed ? undefined : view.loginHint;
  const sections: string[] = [];
  if (methods.password.length) {
    sections.push(`${form({
      id: 'password',
      action: at('/login'),
      csrf: view.csrf,
      submit: 'Sign in',
      problem: problemOf('password'),
      autofocus: !view.failed && (methods.passwordFirst || !methods.code.length),
      fields: [
        identifierField(methods.password, prefillOf('password'), 'username'),
        { name: 'password', label: 'Password', type: 'password', autocomplete: 'current-password', maxlength: 256 },
      ],
    })}
${methods.forgotPassword.length ? links({ href: at('/forgot-password'), label: 'Forgot password?' }) : ''}`);
  }
  if (methods.code.length) {
    sections.push(
      form({
        id: 'code',
        action: at('/sign-in/send-code'),
        csrf: view.csrf,
        submit: 'Send code',
        problem: problemOf('code'),
        autofocus: !view.failed && (!methods.passwordFirst || !methods.password.length),
        fields: [identifierField(methods.code, prefillOf('code'))],
      }),
    );
  }
  if (!methods.passwordFirst) sections.reverse();
  const alternative = methods.passwordFirst
    ? `Or get a sign-in code by ${identifierLabel(methods.code).toLowerCase()}`
    : 'Or use your password';
  const body =
    sections.length === 2
      ? `${sections[0]}\n<hr class="divider"><h2>${alternative}</h2>\n${sections[1]}`
      : sections.join('\n');
  // Without a sign-in method (social and enterprise sign-in only) the connectors are the page.
  const connectors = connectorSection(view, !sections.length);
  const nothing = !sections.length && !connectors ? '<p>No way to sign in is set up for this service yet.</p>' : '';
  const register = methods.canRegister
    ? links({ text: 'No account yet?', href: at('/sign-up'), label: 'Create account' })
    : '';
  return page({
    title: 'Sign in',
    heading: `Sign in to ${view.branding.appName}`,
    branding: view.branding,
    notice: view.notice,
    problem: view.problem,
    body: `${body}${nothing}\n${connectors}\n${register}\n${buttonForm(at('/abort'), view.csrf, 'Cancel')}`,
  });
}

/** The hint under a new password field: the policy's length and character mix. */
export function passwordHint(policy: PasswordPolicy): string {
  const types =
    policy.characterTypes.min > 1
      ? `, mixing at least ${policy.characterTypes.min} of lowercase letters, uppercase letters, digits and symbols`
      : '';
  return `At least ${policy.length.min} characters${types}.`;
}

/** The field a new account's username is chosen in (what `users/schemas.ts`' `username` takes). */
export function newUsernameField(value: string | undefined): Field {
  return {
    name: 'username',
    label: 'Username',
    autocomplete: 'username',
    value,
    maxlength: 128,
    hint: 'Letters, digits and underscores; it starts with a letter or an underscore.',
  };
}

/** Why a chosen username is refused, or undefined when the username schema takes it. */
export function usernameProblem(username: string): FormProblem | undefined {
  if (usernameSchema.safeParse(username).success) return undefined;
  const message = username
    ? 'A username starts with a letter or an underscore, then letters, digits or underscores.'
    : 'Choose a username.';
  return { field: 'username', message };
}

export function newPasswordField(policy: PasswordPolicy, label = 'Password'): Field {
  return {
    name: 'password',
    label,
    type: 'password',
    autocomplete: 'new-password',
    maxlength: 256,
    hint: passwordHint(policy),
  };
}

export interface CodeView extends PageFrame {
  heading: string;
  /** Where the code went, as the user typed it. */
  recipient: string;
  /** The code was already accepted: only the rest of the form (a new password) is still asked for. */
  verified: boolean;
  /** The form posts here; a new code is asked for at `resend`. */
  action: string;
  resend: string;
  submit: string;
  /** A new password to set with the code. */
  password?: { policy: PasswordPolicy; label: string };
  back: { href: string; label: string };
  problem?: FormProblem;
  notice?: string;
}

/** The page after "Send code": the code (and a new password, when the flow sets one). */
export function codePage(view: CodeView): string {
  const fields: Field[] = view.verified
    ? []
    : [
        {
          name: 'code',
          label: 'Verification code',
          inputmode: 'numeric',
          autocomplete: 'one-time-code',
          maxlength: 64,
        },
      ];
  if (view.password) fields.push(newPasswordField(view.password.policy, view.password.label));
  const sentTo = view.verified
    ? `<p>The code sent to <strong>${escapeHtml(view.recipient)}</strong> is confirmed.</p>`
    : `<p>We sent a code to <strong>${escapeHtml(view.recipient)}</strong>. Enter it below.</p>`;
  const resend = view.verified
    ? ''
    : `\n<hr class="divider"><p class="links">No code? It can take a minute to arrive.</p>
${form({ id: 'resend', action: view.resend, csrf: view.csrf, submit: 'Send a new code', fields: [], hidden: { identifier: view.recipient }, secondary: true })}`;
  return page({
    title: view.heading,
    heading: view.heading,
    branding: view.branding,
    problem: view.problem,
    notice: view.notice,
    body: `${sentTo}
${form({ id: 'verify', action: view.action, csrf: view.csrf, submit: view.submit, fields, problem: view.problem, autofocus: true })}${resend}
${links(view.back)}`,
  });
}
