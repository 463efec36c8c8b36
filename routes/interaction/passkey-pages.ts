import { escapeHtml } from '../../lib/http/html.ts';
import { buttonForm, csrfInput, links, page, type FormProblem } from './layout.ts';
import type { PageFrame } from './sign-in-pages.ts';

export interface PasskeyView extends PageFrame {
  /** `get`: prove one of the account's passkeys; `create`: register a new one. */
  ceremony: 'get' | 'create';
  verificationId: string;
  /** SimpleWebAuthn's options JSON for `navigator.credentials.get()` / `.create()`. */
  options: unknown;
  /** The script's URL, allowed by the page's CSP. */
  script: string;
  /** Other ways to verify or to enrol, as links. */
  others: Array<{ href: string; label: string }>;
  skippable?: boolean;
  problem?: FormProblem;
}

/**
 * "Use a passkey" at the second-factor step, or "Create a passkey" when the account must enrol one: a form whose
 * button starts the browser's passkey prompt (the page's script), then posts the answer. Without JavaScript the
 * page says so (the script removes that note); the other factors' links still lead to plain forms.
 */
export function passkeyPage(view: PasskeyView): string {
  const creating = view.ceremony === 'create';
  const intro = creating
    ? 'Create a passkey for this account: your device or security key keeps it, and unlocks it with your fingerprint, face, PIN or a touch.'
    : 'Use the passkey saved for this account on this device, on your phone, or on a security key.';
  const button = creating ? 'Create a passkey' : 'Use a passkey';
  const action = view.at(creating ? '/mfa/passkey/setup' : '/mfa/passkey');
  return page({
    title: creating ? 'Set up a passkey' : 'Two-step verification',
    heading: creating ? 'Set up a passkey' : 'Two-step verification',
    branding: view.branding,
    problem: view.problem,
    body: `<p>${escapeHtml(intro)}</p>
<form method="post" action="${escapeHtml(action)}" id="passkey" data-ceremony="${view.ceremony}" data-options="${escapeHtml(JSON.stringify(view.options))}">${csrfInput(view.csrf)}<input type="hidden" name="verificationId" value="${escapeHtml(view.verificationId)}"><input type="hidden" name="payload" value="">
<button type="submit">${button}</button></form>
<p class="hint" id="passkey-status" role="status" aria-live="polite"></p>
<p class="alert" id="passkey-needs-script">Passkeys need JavaScript, which is off in this browser.${view.others.length ? ' Use another way below.' : ''}</p>
${links(...view.others)}
${view.skippable ? buttonForm(view.at('/mfa/skip'), view.csrf, 'Skip for now') : ''}
${creating ? '' : buttonForm(view.at('/abort'), view.csrf, 'Cancel')}
<script src="${escapeHtml(view.script)}" defer></script>`,
  });
}
