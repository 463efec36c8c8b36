import { escapeHtml } from '../../lib/http/html.ts';
import { buttonForm, form, links, page, type Field, type FormProblem } from './layout.ts';
import type { PageFrame } from './sign-in-pages.ts';

/** The second-factor pages: plain forms, no script; the only image a page carries itself is the QR code. */

const codeField = (label: string, hint: string): Field => ({
  name: 'code',
  label,
  inputmode: label === 'Backup code' ? undefined : 'numeric',
  autocomplete: 'one-time-code',
  maxlength: 64,
  hint,
});

export interface SecondFactorView extends PageFrame {
  /** Which factor the form asks for; `other` is the link to the other one, when the account holds it. */
  factor: 'Totp' | 'BackupCode';
  other: boolean;
  /** The account holds a passkey: a link to use it. */
  passkey?: boolean;
  problem?: FormProblem;
}

/** "Authentication code" (the app's) or "Backup code", with the way to the other factor. */
export function secondFactorPage(view: SecondFactorView): string {
  const totp = view.factor === 'Totp';
  const field = totp
    ? codeField('Authentication code', 'The 6-digit code your authenticator app shows for this account.')
    : codeField(
        'Backup code',
        'One of the backup codes you saved when you set up two-step verification. Each works once.',
      );
  const switchTo = totp
    ? { href: view.at('/mfa/backup-code'), label: 'Use a backup code' }
    : { href: view.at('/mfa'), label: 'Use your authenticator app' };
  return page({
    title: 'Two-step verification',
    heading: 'Two-step verification',
    branding: view.branding,
    problem: view.problem,
    body: `${form({
      id: 'second-factor',
      action: view.at(totp ? '/mfa' : '/mfa/backup-code'),
      csrf: view.csrf,
      submit: 'Verify',
      fields: [field],
      problem: view.problem,
      autofocus: true,
    })}
${view.other ? links(switchTo) : ''}
${view.passkey ? links({ href: view.at('/mfa/passkey'), label: 'Use a passkey' }) : ''}
${buttonForm(view.at('/abort'), view.csrf, 'Cancel')}`,
  });
}

export interface SetupView extends PageFrame {
  verificationId: string;
  /** The new secret, its URI and QR code: only on the page that first shows them. */
  enrolment?: { secret: string; keyUri: string; secretQrCode: string };
  skippable: boolean;
  /** Passkeys are offered too: the link to create one instead. */
  passkeySetup?: string;
  problem?: FormProblem;
}

/** Setting up an authenticator app: the QR code and the key (shown once), then a code from the app to confirm. */
export function setupPage(view: SetupView): string {
  const { enrolment } = view;
  const grouped = enrolment?.secret.replace(/(.{4})/g, '$1 ').trim();
  const intro = enrolment
    ? `<p>Scan this QR code with an authenticator app (Google Authenticator, 1Password, Authy, …), then enter the code it shows.</p>
<p><img class="qr" src="${escapeHtml(enrolment.secretQrCode)}" alt="QR code to add this account to an authenticator app" width="240" height="240"></p>
<p>Cannot scan it? Enter this key in the app: <code aria-label="Setup key">${escapeHtml(grouped ?? '')}</code></p>
<p class="links"><a href="${escapeHtml(enrolment.keyUri)}">Open in an authenticator app on this device</a></p>
<p class="hint">The key is shown only on this page: it is not shown again.</p>`
    : `<p>Enter the code your authenticator app shows for the key you added.</p>
${links({ text: 'Lost the key?', href: view.at('/mfa/setup'), label: 'Start again with a new key' })}`;
  return page({
    title: 'Set up two-step verification',
    heading: 'Set up two-step verification',
    branding: view.branding,
    problem: view.problem,
    body: `${intro}
${form({
  id: 'setup',
  action: view.at('/mfa/setup'),
  csrf: view.csrf,
  submit: 'Confirm',
  problem: view.problem,
  autofocus: !enrolment,
  fields: [codeField('Authentication code', 'The 6-digit code the app shows now.')],
  hidden: { verificationId: view.verificationId },
})}
${view.passkeySetup ? links({ href: view.passkeySetup, label: 'Use a passkey instead' }) : ''}
${view.skippable ? buttonForm(view.at('/mfa/skip'), view.csrf, 'Skip for now') : ''}`,
  });
}

/** The new backup codes, shown once, and the button that stores them and goes on. */
export function backupCodesPage(view: PageFrame & { verificationId: string; codes: string[] }): string {
  const items = view.codes.map((code) => `<li><code>${escapeHtml(code)}</code></li>`).join('');
  return page({
    title: 'Save your backup codes',
    heading: 'Save your backup codes',
    branding: view.branding,
    body: `<p>If you lose your authenticator app, each of these codes signs you in once. Keep them somewhere safe:
they are shown only on this page.</p>
<ul class="codes" aria-label="Backup codes">${items}</ul>
${form({ id: 'backup-codes', action: view.at('/mfa/backup-codes'), csrf: view.csrf, submit: 'I have saved my backup codes', fields: [], hidden: { verificationId: view.verificationId } })}`,
  });
}
