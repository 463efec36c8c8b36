import { escapeHtml, htmlPage } from '../../lib/http/html.ts';

/** Server-rendered sign-in pages: plain HTML forms, no front-end build step. */

/** The hidden field every form carries: the interaction's CSRF token. */
export const CSRF_FIELD = 'csrf_token';

interface FormTarget {
  action: string;
  abort: string;
  csrf: string;
}

function csrfInput(csrf: string): string {
  return `<input type="hidden" name="${CSRF_FIELD}" value="${escapeHtml(csrf)}">`;
}

function abortForm(target: FormTarget, label: string): string {
  return `<form method="post" action="${escapeHtml(target.abort)}">${csrfInput(target.csrf)}<button class="secondary" type="submit">${label}</button></form>`;
}

export function signInPage(options: FormTarget & { clientName: string; error?: string; identifier?: string }): string {
  return htmlPage('Sign in', `<h1>Sign in to ${escapeHtml(options.clientName)}</h1>
${options.error ? `<p class="error" role="alert">${escapeHtml(options.error)}</p>` : ''}
<form method="post" action="${escapeHtml(options.action)}">${csrfInput(options.csrf)}
<label for="identifier">Username or email</label>
<input id="identifier" name="identifier" autocomplete="username" required value="${escapeHtml(options.identifier ?? '')}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button></form>
${abortForm(options, 'Cancel')}`);
}

export function consentPage(options: FormTarget & { clientName: string; scopes: string[] }): string {
  const items = options.scopes.map((scope) => `<li>${escapeHtml(scope)}</li>`).join('');
  return htmlPage('Authorize', `<h1>${escapeHtml(options.clientName)} asks for access</h1>
<p>It will be able to use:</p><ul>${items}</ul>
<form method="post" action="${escapeHtml(options.action)}">${csrfInput(options.csrf)}<button type="submit">Allow</button></form>
${abortForm(options, 'Deny')}`);
}
