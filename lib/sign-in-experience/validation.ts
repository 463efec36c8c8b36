import { errors, type CodeOf } from '../errors.ts';
import type { SignInExperience, SignInIdentifier } from './schema.ts';

/** A broken rule: its code (Logto's where Logto has one), a message and what it concerns. */
type Refusal = [code: CodeOf<'rule'>, message: string, data?: Record<string, unknown>];

function signInRefusal({ signIn }: SignInExperience): Refusal | undefined {
  // No method at all is Logto's social and enterprise sign-in only; the sign-up rules keep accounts that register
  // by an identifier able to sign in by it.
  const { methods } = signIn;
  if (new Set(methods.map((method) => method.identifier)).size !== methods.length) {
    return ['sign_in_experiences.duplicated_sign_in_methods', 'each identifier may appear in one sign-in method only'];
  }
  for (const method of methods) {
    const where = { identifier: method.identifier };
    if (!method.password && !method.verificationCode) {
      return [
        'sign_in_experiences.at_least_one_authentication_factor',
        `sign-in by ${method.identifier} needs a password or a verification code`,
        where,
      ];
    }
    if (method.identifier === 'username' && method.verificationCode) {
      return [
        'sign_in_experiences.verification_code_requires_email_or_phone',
        'no verification code can be sent to a username',
        where,
      ];
    }
  }
  return undefined;
}

const isContact = (identifier: SignInIdentifier) => identifier !== 'username';

/**
 * Logto's rules for secondary identifiers: only beside a primary one, each once and none of the primary ones
 * (`emailOrPhone` beside neither email nor phone), an email or phone one proven by a code (`verify`, with the
 * sign-up's `verify` on).
 */
function secondaryRefusal({ signUp }: SignInExperience): Refusal | undefined {
  const secondary = signUp.secondaryIdentifiers ?? [];
  if (secondary.length === 0) return undefined;
  if (signUp.identifiers.length === 0) {
    return ['sign_in_experiences.missing_sign_up_identifiers', 'secondary sign-up identifiers need a primary one'];
  }
  const names = secondary.map((item) => item.identifier);
  const primary = new Set<string>(signUp.identifiers);
  const overlaps = (name: string) =>
    name === 'emailOrPhone' ? primary.has('email') || primary.has('phone') : primary.has(name);
  if (new Set(names).size !== names.length || names.some(overlaps)) {
    return [
      'sign_in_experiences.duplicated_sign_up_identifiers',
      'a secondary sign-up identifier must not repeat nor be a primary one',
    ];
  }
  const unverified = secondary.find((item) => item.identifier !== 'username' && (!item.verify || !signUp.verify));
  if (unverified) {
    return [
      'sign_in_experiences.passwordless_requires_verify',
      `a secondary ${unverified.identifier} is only taken by a verified code: it needs verify, and so does sign-up`,
      { identifier: unverified.identifier },
    ];
  }
  return undefined;
}

function signUpRefusal({ signUp, signIn }: SignInExperience): Refusal | undefined {
  const { identifiers } = signUp;
  if (new Set(identifiers).size !== identifiers.length) {
    return ['sign_in_experiences.duplicated_sign_up_identifiers', 'sign-up identifiers must not repeat'];
  }
  if (identifiers.length === 0) {
    // As in Logto: without sign-up identifiers, accounts are registered through social and enterprise connectors only.
    if (signUp.password || signUp.verify) {
      return ['sign_in_experiences.missing_sign_up_identifiers', 'a password or verify needs a sign-up identifier'];
    }
    return undefined;
  }
  if (identifiers.length > 1 && !(identifiers.length === 2 && identifiers.every(isContact))) {
    return [
      'sign_in_experiences.unsupported_sign_up_identifiers',
      'sign-up takes one identifier, or email and phone (either one)',
    ];
  }
  if (identifiers.includes('username') && !signUp.password) {
    return ['sign_in_experiences.username_requires_password', 'sign-up by username needs a password'];
  }
  const contact = identifiers.some(isContact);
  if (contact && !signUp.verify) {
    return [
      'sign_in_experiences.passwordless_requires_verify',
      'sign-up by email or phone needs verify: the address is proven with a code',
    ];
  }
  const secondaryContact = (signUp.secondaryIdentifiers ?? []).some((item) => item.identifier !== 'username');
  if (!contact && !secondaryContact && signUp.verify) {
    return ['sign_in_experiences.verify_requires_email_or_phone', 'verify applies to email or phone sign-up only'];
  }
  for (const identifier of identifiers) {
    const method = signIn.methods.find((candidate) => candidate.identifier === identifier);
    if (!method) {
      return [
        'sign_in_experiences.miss_sign_up_identifier_in_sign_in',
        `users who sign up by ${identifier} must be able to sign in by it`,
        { identifier },
      ];
    }
    if (signUp.password && !method.password) {
      return [
        'sign_in_experiences.password_sign_in_must_be_enabled',
        `sign-up sets a password, so sign-in by ${identifier} must take one`,
        { identifier },
      ];
    }
    if (!signUp.password && !method.verificationCode) {
      return [
        'sign_in_experiences.code_sign_in_must_be_enabled',
        `sign-up sets no password, so sign-in by ${identifier} must take a code`,
        { identifier },
      ];
    }
  }
  return undefined;
}

function passwordPolicyRefusal({ passwordPolicy }: SignInExperience): Refusal | undefined {
  if (passwordPolicy.length.min > passwordPolicy.length.max) {
    return [
      'sign_in_experiences.invalid_password_length',
      'passwordPolicy.length.min must not exceed length.max',
      { ...passwordPolicy.length },
    ];
  }
  if (passwordPolicy.rejects.pwned) {
    return [
      'sign_in_experiences.pwned_check_not_supported',
      'rejects.pwned needs a breach service on the network; use rejects.commonPasswords (an offline list) instead',
    ];
  }
  return undefined;
}

/** Throws 422 with the first rule the settings break; the whole object is checked, not only the patch. */
/** Logto's MFA rules (400, as Logto answers them), and no mandatory enrolment without a factor to enrol. */
function assertMfa({ mfa }: SignInExperience): void {
  if (new Set(mfa.factors).size !== mfa.factors.length) {
    throw errors.invalid('sign_in_experiences.duplicated_mfa_factors', 'each MFA factor may appear once');
  }
  if (mfa.factors.length === 1 && mfa.factors[0] === 'BackupCode') {
    throw errors.invalid(
      'sign_in_experiences.backup_code_cannot_be_enabled_alone',
      'backup codes only back up another factor',
    );
  }
  if (mfa.factors.length === 0 && (mfa.policy === 'Mandatory' || mfa.organizationRequiredMfaPolicy === 'Mandatory')) {
    throw errors.invalid(
      'sign_in_experiences.mandatory_mfa_requires_factors',
      'mandatory MFA needs at least one factor users can enrol',
    );
  }
}

export function assertConsistent(settings: SignInExperience): void {
  assertMfa(settings);
  const refusal =
    signInRefusal(settings) ?? signUpRefusal(settings) ?? secondaryRefusal(settings) ?? passwordPolicyRefusal(settings);
  if (refusal) throw errors.unprocessable(...refusal);
}

export function refuseUnsupported(settings: readonly string[]): void {
  if (settings.length) {
    throw errors.unprocessable(
      'sign_in_experiences.unsupported_setting',
      `not supported by this service: ${settings.join(', ')}`,
      { settings: [...settings] },
    );
  }
}
