import { errors } from '../errors.ts';
import type { SignInExperience } from '../sign-in-experience/schema.ts';
import type { User } from '../users/repository.ts';
import type { ExperienceProfile, InteractionEvent, VerificationRecord } from './types.ts';

/**
 * What the sign-in experience settings allow, as Logto decides it: which interaction events, which sign-in
 * methods, which verification can reset a password, and which profile a user must have.
 */

/** `signInMode` SignIn turns registration off, Register turns sign-in off; forgot password is always open. */
export function assertEventAllowed(settings: SignInExperience, event: InteractionEvent): void {
  if (event === 'SignIn' && settings.signInMode === 'Register') {
    throw errors.experience('auth.forbidden', 'sign-in is not enabled: this service only registers new users');
  }
  if (event === 'Register' && settings.signInMode === 'SignIn') {
    throw errors.experience('auth.forbidden', 'registration is not enabled');
  }
}

/** Forgot password never turns into sign-in or registration, nor the other way round (Logto's rule). */
export function assertEventSwitch(from: InteractionEvent, to: InteractionEvent): void {
  if ((from === 'ForgotPassword') !== (to === 'ForgotPassword')) {
    throw errors.experience(
      'session.not_supported_for_forgot_password',
      'a forgot-password experience cannot switch to sign-in or registration, nor the other way round; start a new one',
    );
  }
}

/** The verification must be one of the enabled sign-in methods: its identifier, with a password or a code. */
export function assertSignInMethod(settings: SignInExperience, record: VerificationRecord): void {
  const byPassword = record.type === 'Password';
  const enabled = settings.signIn.methods.some(
    (method) =>
      method.identifier === record.identifier.type && (byPassword ? method.password : method.verificationCode),
  );
  if (!enabled) {
    throw errors.experience(
      'user.sign_in_method_not_enabled',
      `signing in with ${record.identifier.type} and ${byPassword ? 'a password' : 'a verification code'} is not enabled`,
    );
  }
}

/** Only a verification code to the account's email or phone resets a password, of the methods the settings allow. */
export function assertForgotPasswordMethod(settings: SignInExperience, record: VerificationRecord): void {
  if (record.type === 'Password') {
    throw errors.experience(
      'session.not_supported_for_forgot_password',
      'a forgotten password is reset with a verification code sent to the email address or phone number',
    );
  }
  if (settings.forgotPasswordMethods && !settings.forgotPasswordMethods.includes(record.type)) {
    throw errors.experience(
      'session.not_supported_for_forgot_password',
      `forgotPasswordMethods does not include ${record.type}`,
    );
  }
}

export type MissingProfile = 'username' | 'email' | 'phone' | 'emailOrPhone' | 'password';

/**
 * The profile fields the sign-up settings require that neither the user nor the profile being built has: the
 * primary identifiers (`[email, phone]` means either one), the secondary ones (`emailOrPhone` either one) and a
 * password. A connector identity takes the place of a password, as in Logto: one the account holds, or
 * `byConnector`, the one it registers or signs in with.
 */
export function missingProfile(
  settings: SignInExperience,
  profile: ExperienceProfile,
  user?: User,
  byConnector = false,
): MissingProfile[] {
  const missing: MissingProfile[] = [];
  const identifiers = new Set(settings.signUp.identifiers);
  const has = {
    username: Boolean(user?.username ?? profile.username),
    email: Boolean(user?.primaryEmail ?? profile.primaryEmail),
    phone: Boolean(user?.primaryPhone ?? profile.primaryPhone),
    password:
      byConnector || Boolean(user?.hasPassword || profile.passwordDigest || Object.keys(user?.identities ?? {}).length),
  };
  if (identifiers.has('username') && !has.username) missing.push('username');
  if (identifiers.has('email') && identifiers.has('phone')) {
    if (!has.email && !has.phone) missing.push('emailOrPhone');
  } else if (identifiers.has('email') && !has.email) {
    missing.push('email');
  } else if (identifiers.has('phone') && !has.phone) {
    missing.push('phone');
  }
  for (const { identifier } of settings.signUp.secondaryIdentifiers ?? []) {
    const given = identifier === 'emailOrPhone' ? has.email || has.phone : has[identifier];
    if (!given && !missing.includes(identifier)) missing.push(identifier);
  }
  if (settings.signUp.password && !has.password) missing.push('password');
  return missing;
}

export function assertProfileComplete(
  settings: SignInExperience,
  profile: ExperienceProfile,
  user?: User,
  byConnector = false,
): void {
  const missing = missingProfile(settings, profile, user, byConnector);
  if (missing.length) {
    throw errors.experience('user.missing_profile', `the profile lacks what sign-up requires: ${missing.join(', ')}`, {
      missingProfile: missing,
    });
  }
}
