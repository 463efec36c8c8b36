/**
 * Logto's authorization parameters for the sign-in pages (its SDKs send them): `first_screen` (and the older
 * `interaction_mode`), `identifier`, `direct_sign_in`, and `organization_id`, whose organization's branding the pages
 * show. `login_hint` is OpenID Connect's own.
 */
export const LOGTO_AUTHORIZATION_PARAMETERS = [
  'first_screen',
  'interaction_mode',
  'identifier',
  'direct_sign_in',
  'organization_id',
];

const IDENTIFIER_TYPES = ['username', 'email', 'phone'] as const;
type IdentifierType = (typeof IDENTIFIER_TYPES)[number];

/** The page a sign-in starts on. */
export type FirstScreen = 'sign-in' | 'register' | 'reset-password' | 'single-sign-on';

export interface SignInHints {
  firstScreen: FirstScreen;
  /** Who is signing in (an email address, a phone number or a username), to fill in the identifier. */
  loginHint?: string;
  /** The identifiers the pages ask for, when the request names any. */
  identifiers?: IdentifierType[];
  /** Straight to a connector: a social connector by its target (or id), an enterprise one by id. */
  directSignIn?: { method: 'social' | 'sso'; target: string };
}

const FIRST_SCREENS: Record<string, FirstScreen> = {
  signIn: 'sign-in',
  sign_in: 'sign-in',
  'identifier:sign_in': 'sign-in',
  register: 'register',
  'identifier:register': 'register',
  reset_password: 'reset-password',
  single_sign_on: 'single-sign-on',
};

const text = (value: unknown, max: number): string | undefined =>
  typeof value === 'string' && value.trim() !== '' && value.length <= max ? value.trim() : undefined;

/** What an authorization request's parameters ask of the sign-in pages; what is not understood is left out. */
export function signInHints(params: Record<string, unknown>): SignInHints {
  const mode = text(params.interaction_mode, 32) === 'signUp' ? 'register' : 'sign-in';
  const firstScreen = FIRST_SCREENS[text(params.first_screen, 32) ?? ''] ?? mode;
  const hints: SignInHints = { firstScreen };
  const loginHint = text(params.login_hint, 320);
  if (loginHint) hints.loginHint = loginHint;
  const identifiers = (text(params.identifier, 64) ?? '')
    .split(/[\s,]+/)
    .filter((value): value is IdentifierType => (IDENTIFIER_TYPES as readonly string[]).includes(value));
  if (identifiers.length) hints.identifiers = [...new Set(identifiers)];
  const direct = /^(social|sso):(.{1,128})$/.exec(text(params.direct_sign_in, 140) ?? '');
  if (direct) hints.directSignIn = { method: direct[1] as 'social' | 'sso', target: direct[2]! };
  return hints;
}
