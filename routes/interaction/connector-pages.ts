import { escapeHtml } from '../../lib/http/html.ts';
import { buttonForm, csrfInput, form, links, page, type FormProblem } from './layout.ts';
import type { PageFrame } from './sign-in-pages.ts';

/** The connectors a sign-in page offers: one link per social connector, and an email form when SSO is set up. */
export interface ConnectorChoices {
  social: Array<{ id: string; target: string; name: string }>;
  sso: boolean;
}

/**
 * "Continue with …" links (plain navigations: the service answers them with a redirect to the provider, which a
 * form's `form-action` policy would block) and the single sign-on form; `only` when the page has no form of its
 * own, so there is nothing to be an alternative to.
 */
export function connectorSection(
  view: PageFrame & { problem?: FormProblem; failed?: string; identifier?: string },
  only = false,
): string {
  const choices = view.connectors;
  if (!choices || (!choices.social.length && !choices.sso)) return '';
  const social = choices.social.map((connector) =>
    links({ href: view.at(`/social/${encodeURIComponent(connector.id)}`), label: `Continue with ${connector.name}` }),
  );
  const sso = choices.sso
    ? form({
        id: 'sso',
        action: view.at('/sso'),
        csrf: view.csrf,
        submit: 'Continue with single sign-on',
        secondary: true,
        problem: view.failed === 'sso' ? view.problem : undefined,
        fields: [
          {
            name: 'identifier',
            label: 'Work email',
            type: 'email',
            autocomplete: 'email',
            maxlength: 320,
            value: view.failed === 'sso' ? view.identifier : undefined,
          },
        ],
      })
    : '';
  const choicesHtml = [...social, sso].join('\n');
  return only ? choicesHtml : `<hr class="divider"><h2>Or continue with</h2>\n${choicesHtml}`;
}

/** The page after an email of an SSO domain: where the user goes to sign in (a link, for the same reason). */
export function ssoChoicePage(view: PageFrame, email: string, connectors: Array<{ id: string; name: string }>): string {
  return page({
    title: 'Single sign-on',
    heading: 'Sign in with your organization',
    branding: view.branding,
    body: `<p>Accounts of <strong>${escapeHtml(email.slice(email.lastIndexOf('@') + 1))}</strong> sign in with their organization's single sign-on.</p>
${connectors.map((connector) => links({ href: view.at(`/sso/${encodeURIComponent(connector.id)}`), label: `Continue with ${connector.name}` })).join('\n')}
${links({ href: view.at(), label: 'Sign in another way' })}`,
  });
}

/** A social identity no account has, while an account has its verified email: link only if the user says so. */
export function linkPage(view: PageFrame, options: { email: string; link: string; register?: string }): string {
  const register = options.register
    ? `\n${buttonForm(options.register, view.csrf, 'Create a new account instead')}`
    : '';
  return page({
    title: 'Link your account',
    heading: 'Link your account',
    branding: view.branding,
    body: `<p>An account with <strong>${escapeHtml(options.email)}</strong> already exists. Link this sign-in to it? Afterwards either way signs you in.</p>
<form method="post" action="${escapeHtml(options.link)}">${csrfInput(view.csrf)}<button type="submit">Link and continue</button></form>${register}
${links({ href: view.at(), label: 'Cancel' })}`,
  });
}

/** A refused connector sign-in, with the way back to the sign-in page. */
export function connectorProblemPage(view: Pick<PageFrame, 'at' | 'branding'>, problem: FormProblem): string {
  return page({
    title: 'Sign-in not completed',
    heading: 'Sign-in not completed',
    branding: view.branding,
    problem,
    body: links({ href: view.at(), label: 'Back to sign in' }),
  });
}

/**
 * The callback's answer: a page that moves on at once (`Refresh`) with a link as well. A redirect would continue
 * the provider's form post, whose `form-action` policy ends at this service's callback, not at the application.
 */
export function continuePage(next: string): string {
  return page({
    title: 'Signing you in',
    heading: 'Signing you in',
    branding: { appName: 'the application' },
    body: `<p>You are being signed in.</p>\n${links({ href: next, label: 'Continue' })}`,
  });
}
