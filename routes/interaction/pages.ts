import { escapeHtml } from '../../lib/http/html.ts';
import { buttonForm, csrfInput, page, type Branding } from './layout.ts';

/** The consent page of third-party applications: what the application asks for, Allow or Deny. */
export function consentPage(options: {
  action: string;
  abort: string;
  csrf: string;
  branding: Branding;
  scopes: string[];
}): string {
  const items = options.scopes.map((scope) => `<li>${escapeHtml(scope)}</li>`).join('');
  return page({
    title: 'Authorize',
    heading: `${options.branding.appName} asks for access`,
    branding: options.branding,
    body: `<p>It will be able to use:</p><ul>${items}</ul>
<form method="post" action="${escapeHtml(options.action)}">${csrfInput(options.csrf)}<button type="submit">Allow</button></form>
${buttonForm(options.abort, options.csrf, 'Deny')}`,
  });
}
