import { DomainError, RateLimitedError, type ErrorCode } from '../../lib/errors.ts';
import { httpStatusOf } from '../../lib/http/errors.ts';
import type { FormProblem } from './layout.ts';

/**
 * How the experience library's refusals read on the pages: a message a person understands, on the field it
 * is about, with the status of its kind. Wrong credentials and suspension keep the 401 the sign-in form has
 * always answered with.
 */
const WORDING: Partial<Record<ErrorCode, { message: string; field?: string; status?: number }>> = {
  'session.invalid_credentials': { message: 'The username, email or password is not right.', status: 401 },
  'user.suspended': { message: 'This account is suspended.', status: 401 },
  'session.verification_blocked_too_many_attempts': {
    message: 'Too many failed attempts. This sign-in is locked for a while; try again later.',
  },
  'request.message_rate_limited': {
    message: 'Too many codes were sent to this address. Wait a few minutes before asking for a new one.',
  },
  'verification_code.code_mismatch': {
    message: 'The code is not right. Check the latest message and try again.',
    field: 'code',
  },
  'verification_code.expired': { message: 'This code has expired. Send a new one.', field: 'code' },
  'verification_code.not_found': { message: 'This code is no longer valid. Send a new one.', field: 'code' },
  'verification_code.exceed_max_try': { message: 'Too many wrong codes. Send a new one.', field: 'code' },
  'user.user_not_exist': { message: 'No account uses this address.' },
  'session.mfa.invalid_totp_code': {
    message: 'The code is not right. Enter the code your app shows now.',
    field: 'code',
  },
  'session.mfa.invalid_backup_code': { message: 'This backup code is not right or was already used.', field: 'code' },
  'session.mfa.mfa_factor_not_enabled': { message: 'This kind of second factor is not offered here.' },
  'session.mfa.mfa_policy_not_user_controlled': {
    message: 'A second factor is required for this account: it cannot be skipped.',
  },
  'session.mfa.pending_info_not_found': { message: 'This setup has expired. Start again with a new key.' },
  'session.mfa.webauthn_verification_failed': {
    message: 'This passkey could not be verified. Try again, or use another way to verify.',
  },
  'user.totp_already_in_use': { message: 'This account already has an authenticator app.' },
  'user.username_already_in_use': { message: 'This username is taken. Choose another one.', field: 'username' },
  'user.email_already_in_use': { message: 'An account already uses this email address.' },
  'user.phone_already_in_use': { message: 'An account already uses this phone number.' },
  'user.same_password': { message: 'The new password must differ from the current one.', field: 'password' },
  'user.sign_in_method_not_enabled': { message: 'Signing in this way is not enabled.' },
  'auth.forbidden': { message: 'This is not enabled for this application.' },
  'connector.general': { message: 'The message could not be sent. Try again in a moment.' },
  'session.not_found': { message: 'This sign-in has expired. Go back to the application and start again.' },
  'session.interaction_not_found': { message: 'This step has expired. Start again.' },
  'session.verification_session_not_found': { message: 'This code request has expired. Send a new code.' },
  'session.sso_enabled': {
    message: 'This email address signs in with its organization\'s single sign-on: use "Continue with single sign-on".',
  },
  'user.identity_not_exist': { message: 'No account uses this sign-in, and new accounts cannot be created here.' },
  'user.identity_already_in_use': { message: 'Another account already uses this sign-in.' },
  'connector.authorization_failed': {
    message: 'The sign-in at the provider did not complete, or this page was opened twice. Start again.',
  },
  'connector.social_auth_code_invalid': { message: 'The provider did not accept this sign-in. Start again.' },
  'connector.social_id_token_invalid': { message: "The provider's answer could not be verified. Start again." },
  'connector.upstream_unreachable': { message: 'The provider cannot be reached right now. Try again in a moment.' },
};

export interface PageFailure {
  code: ErrorCode;
  status: number;
  problem: FormProblem;
  /** Seconds a rate-limited user should wait (sent as `Retry-After`). */
  retryAfter?: number;
}

/**
 * A refusal of the experience library as a page shows it; undefined for anything else (an outage or a
 * bug), which the pages' error middleware answers and logs.
 */
export function failureOf(error: unknown): PageFailure | undefined {
  if (!(error instanceof DomainError) || error.kind === 'internal' || error.kind === 'unavailable') return undefined;
  const retryAfter = error instanceof RateLimitedError ? error.retryAfterSeconds : undefined;
  if (error.code === 'password.rejected') {
    const problems = (error.data as { problems?: Array<{ message: string }> } | undefined)?.problems ?? [];
    const reasons = problems.map((problem) => problem.message).join('; ');
    return {
      code: error.code,
      status: httpStatusOf(error),
      problem: { field: 'password', message: reasons ? `This password ${reasons}.` : 'Choose another password.' },
    };
  }
  const wording = WORDING[error.code];
  return {
    code: error.code,
    status: wording?.status ?? httpStatusOf(error),
    problem: { message: wording?.message ?? sentence(error.message), ...(wording?.field && { field: wording.field }) },
    ...(retryAfter !== undefined && { retryAfter }),
  };
}

/** A library message as a sentence. */
function sentence(text: string): string {
  const capital = text.charAt(0).toUpperCase() + text.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
}
