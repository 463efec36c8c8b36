import type { PasswordPolicy } from '../../lib/sign-in-experience/schema.ts';
import { buttonForm, form, links, page, type FormProblem } from './layout.ts';
import { identifierField } from './methods.ts';
import { newPasswordField, newUsernameField, type PageFrame } from './sign-in-pages.ts';
import { connectorSection } from './connector-pages.ts';

export interface SignUpView extends PageFrame {
  policy: PasswordPolicy;
  problem?: FormProblem;
  /** What the user typed, shown again when the form comes back. */
  username?: string;
  identifier?: string;
}

/**
 * Account creation as the sign-up settings ask for it: a username and a password, or an email address (or
 * phone number) that a code then verifies.
 */
export function signUpPage(view: SignUpView): string {
  const { methods, at } = view;
  let content = '';
  if (methods.signUp?.by === 'username') {
    content = form({
      id: 'sign-up',
      action: at('/sign-up'),
      csrf: view.csrf,
      submit: 'Create account',
      problem: view.problem,
      autofocus: true,
      fields: [newUsernameField(view.username), newPasswordField(view.policy)],
    });
  } else if (methods.signUp?.by === 'code') {
    content = form({
      id: 'sign-up',
      action: at('/sign-up/send-code'),
      csrf: view.csrf,
      submit: 'Send code',
      problem: view.problem,
      autofocus: true,
      fields: [
        identifierField(methods.signUp.identifiers, view.identifier ?? (view.problem ? undefined : view.loginHint)),
      ],
    });
  }
  const signIn = methods.canSignIn
    ? links({ text: 'Already have an account?', href: at(), label: 'Sign in instead' })
    : buttonForm(at('/abort'), view.csrf, 'Cancel');
  return page({
    title: 'Create account',
    heading: `Create your ${view.branding.appName} account`,
    branding: view.branding,
    problem: view.problem,
    // Social connectors create accounts too; single sign-on stays on the sign-in page.
    body: `${content}\n${connectorSection({ ...view, connectors: view.connectors && { social: view.connectors.social, sso: false } })}\n${signIn}`,
  });
}

export interface ForgotPasswordView extends PageFrame {
  problem?: FormProblem;
  identifier?: string;
}

/** The first step of a password reset: where to send the code. */
export function forgotPasswordPage(view: ForgotPasswordView): string {
  const { at } = view;
  return page({
    title: 'Reset password',
    heading: 'Reset your password',
    branding: view.branding,
    problem: view.problem,
    body: `<p>We will send a code to confirm it is you.</p>
${form({
  id: 'forgot-password',
  action: at('/forgot-password/send-code'),
  csrf: view.csrf,
  submit: 'Send code',
  problem: view.problem,
  autofocus: true,
  fields: [identifierField(view.methods.forgotPassword, view.identifier)],
})}
${links({ text: 'Remembered it?', href: at(), label: 'Sign in instead' })}`,
  });
}
