import type { IdentifierType } from '../../lib/experience/types.ts';
import type { SignInExperience } from '../../lib/sign-in-experience/schema.ts';
import { codeIdentifier } from '../experience/schemas.ts';
import type { Field, FormProblem } from './layout.ts';

/**
 * What the sign-in experience settings put on the pages: which forms, in which order, asking for what. The
 * pages only choose what to show; whether a method is allowed is decided again by the experience library.
 */
export interface PageMethods {
  /** Identifiers one signs in with by password. */
  password: IdentifierType[];
  /** Identifiers a sign-in code is sent to. */
  code: CodeIdentifierType[];
  /** The password form comes before the code form. */
  passwordFirst: boolean;
  canSignIn: boolean;
  /** The sign-up page registers (the sign-in mode allows it and sign-up names an identifier). */
  canRegister: boolean;
  /**
   * A social or enterprise identity no account holds registers one: the sign-in mode allows registration, with
   * or without sign-up identifiers (none is Logto's registration through connectors only).
   */
  connectorRegistration: boolean;
  /** How one signs up: a username and a password, or an email or phone verified by a code. */
  signUp: { by: 'username' } | { by: 'code'; identifiers: CodeIdentifierType[]; password: boolean } | undefined;
  /** Where a code to reset a password can go. */
  forgotPassword: CodeIdentifierType[];
}

export type CodeIdentifierType = Exclude<IdentifierType, 'username'>;
const isContact = (type: IdentifierType): type is CodeIdentifierType => type !== 'username';

/** Where a reset code may go: the methods `forgotPasswordMethods` lists, or without a list the email (and phone when in use). */
function resetMethods(settings: SignInExperience, phoneInUse: boolean): CodeIdentifierType[] {
  const allowed = settings.forgotPasswordMethods;
  if (!allowed) return phoneInUse ? ['email', 'phone'] : ['email'];
  return (['email', 'phone'] as const).filter((type) =>
    allowed.includes(type === 'email' ? 'EmailVerificationCode' : 'PhoneVerificationCode'),
  );
}

export function methodsOf(settings: SignInExperience): PageMethods {
  const { methods } = settings.signIn;
  const both = methods.find((method) => method.password && method.verificationCode);
  const signUpContacts = settings.signUp.identifiers.filter(isContact);
  let signUp: PageMethods['signUp'];
  if (settings.signUp.identifiers.includes('username')) signUp = { by: 'username' };
  else if (signUpContacts.length)
    signUp = { by: 'code', identifiers: signUpContacts, password: settings.signUp.password };
  const phoneInUse = methods.some((method) => method.identifier === 'phone');
  return {
    password: methods.filter((method) => method.password).map((method) => method.identifier),
    code: methods
      .filter((method) => method.verificationCode)
      .map((method) => method.identifier)
      .filter(isContact),
    passwordFirst: both ? both.isPasswordPrimary : true,
    canSignIn: settings.signInMode !== 'Register',
    canRegister: settings.signInMode !== 'SignIn' && signUp !== undefined,
    connectorRegistration: settings.signInMode !== 'SignIn',
    signUp,
    forgotPassword: resetMethods(settings, phoneInUse),
  };
}

/**
 * The methods narrowed to the identifiers an authorization request names (Logto's `identifier`): the forms ask for
 * those only. Identifiers the sign-in experience does not offer are ignored, and when it offers none of them the
 * methods stay as they are.
 */
export function narrowedTo(methods: PageMethods, identifiers: readonly IdentifierType[] | undefined): PageMethods {
  if (!identifiers) return methods;
  const keep = <T extends IdentifierType>(types: readonly T[]) => types.filter((type) => identifiers.includes(type));
  const password = keep(methods.password);
  const code = keep(methods.code);
  let { signUp } = methods;
  if (signUp?.by === 'code' && keep(signUp.identifiers).length)
    signUp = { ...signUp, identifiers: keep(signUp.identifiers) };
  if (!password.length && !code.length && signUp === methods.signUp) return methods;
  return { ...methods, ...(password.length || code.length ? { password, code } : {}), signUp };
}

const NAMES: Record<IdentifierType, string> = { username: 'username', email: 'email', phone: 'phone number' };

/** "Username or email", "Email", "Username, email or phone number". */
export function identifierLabel(types: readonly IdentifierType[]): string {
  const names = types.map((type) => NAMES[type]);
  const text = names.length > 1 ? `${names.slice(0, -1).join(', ')} or ${names.at(-1)}` : (names[0] ?? '');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The input asking for one of `types`, typed for the keyboard and autofill it needs. */
export function identifierField(types: readonly IdentifierType[], value?: string, autocomplete?: string): Field {
  const only = types.length === 1 ? types[0] : undefined;
  return {
    name: 'identifier',
    label: identifierLabel(types),
    value,
    maxlength: 320,
    type: only === 'email' ? 'email' : only === 'phone' ? 'tel' : 'text',
    autocomplete: autocomplete ?? (only === 'email' ? 'email' : only === 'phone' ? 'tel' : 'username'),
  };
}

/**
 * What the typed text is: an email address has an `@`, a phone number is digits (spaces, dashes, brackets
 * and a leading + allowed, then dropped), anything else a username (which never starts with a digit).
 */
export function parseIdentifier(
  text: string,
  types: readonly IdentifierType[],
): { type: IdentifierType; value: string } | FormProblem {
  // A form the page does not show (no sign-in method of its kind), posted all the same.
  if (!types.length) return { message: 'This way of signing in is not enabled.' };
  const trimmed = text.trim();
  const label = identifierLabel(types).toLowerCase();
  if (!trimmed) return { field: 'identifier', message: `Enter your ${label}.` };
  let type: IdentifierType = 'username';
  if (trimmed.includes('@')) type = 'email';
  else if (/^\+?[\d\s().-]+$/.test(trimmed)) type = 'phone';
  if (!types.includes(type)) return { field: 'identifier', message: `Enter your ${label}.` };
  return { type, value: type === 'phone' ? trimmed.replace(/\D/g, '') : trimmed };
}

/** An email address or phone number a code can be sent to, checked as the Experience API checks it. */
export function parseRecipient(
  text: string,
  types: readonly CodeIdentifierType[],
): { type: CodeIdentifierType; value: string } | FormProblem {
  const parsed = parseIdentifier(text, types);
  if ('message' in parsed) return parsed;
  const checked = codeIdentifier.safeParse(parsed);
  if (!checked.success) {
    return {
      field: 'identifier',
      message: parsed.type === 'email' ? 'Enter a valid email address.' : 'Enter a valid phone number.',
    };
  }
  return checked.data;
}

export const isProblem = (value: object): value is FormProblem => 'message' in value;
