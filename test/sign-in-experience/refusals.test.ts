import { expect } from 'chai';
import { startHarness, type Harness } from '../support/management/harness.ts';

const method = (identifier: string, password: boolean, verificationCode: boolean, isPasswordPrimary = password) => ({
  identifier,
  password,
  verificationCode,
  isPasswordPrimary,
});
const signUp = (identifiers: string[], password: boolean, verify: boolean) => ({ identifiers, password, verify });

interface Refusal {
  why: string;
  body: unknown;
  status: 400 | 422;
  code: string;
  data?: unknown;
}

const UNSUPPORTED: Refusal[] = [
  {
    why: 'adaptive MFA',
    body: { adaptiveMfa: { enabled: true } },
    status: 422,
    code: 'sign_in_experiences.unsupported_setting',
    data: { settings: ['adaptiveMfa'] },
  },
  {
    why: 'social connectors, even none',
    body: { socialSignInConnectorTargets: [] },
    status: 422,
    code: 'sign_in_experiences.unsupported_setting',
    data: { settings: ['socialSignInConnectorTargets'] },
  },
  {
    why: 'colours and language',
    body: { color: { primaryColor: '#000000' }, languageInfo: { autoDetect: true } },
    status: 422,
    code: 'sign_in_experiences.unsupported_setting',
    data: { settings: ['color', 'languageInfo'] },
  },
  {
    why: 'a favicon',
    body: { branding: { logoUrl: 'https://cdn.example.com/l.svg', favicon: 'https://cdn.example.com/f.ico' } },
    status: 422,
    code: 'sign_in_experiences.unsupported_setting',
    data: { settings: ['branding.favicon'] },
  },
  {
    why: 'password expiration',
    body: { forgotPasswordMethods: [], passwordExpiration: { enabled: false } },
    status: 422,
    code: 'sign_in_experiences.unsupported_setting',
    data: { settings: ['passwordExpiration'] },
  },
  {
    why: 'the pwned-passwords check (it needs the network)',
    body: { passwordPolicy: { rejects: { pwned: true } } },
    status: 422,
    code: 'sign_in_experiences.pwned_check_not_supported',
  },
];

const INCONSISTENT: Refusal[] = [
  {
    why: 'no sign-in method while the stored sign-up is by username',
    body: { signIn: { methods: [] } },
    status: 422,
    code: 'sign_in_experiences.miss_sign_up_identifier_in_sign_in',
    data: { identifier: 'username' },
  },
  {
    why: 'no sign-in method with sign-up by email and a code',
    body: { signIn: { methods: [] }, signUp: signUp(['email'], false, true) },
    status: 422,
    code: 'sign_in_experiences.miss_sign_up_identifier_in_sign_in',
    data: { identifier: 'email' },
  },
  {
    why: 'no sign-in method with a sign-up password but no identifier',
    body: { signIn: { methods: [] }, signInMode: 'SignIn', signUp: signUp([], true, false) },
    status: 422,
    code: 'sign_in_experiences.missing_sign_up_identifiers',
  },
  {
    why: 'one identifier twice',
    body: { signIn: { methods: [method('username', true, false), method('username', true, false)] } },
    status: 422,
    code: 'sign_in_experiences.duplicated_sign_in_methods',
  },
  {
    why: 'a method with neither password nor code',
    body: { signIn: { methods: [method('username', true, false), method('email', false, false)] } },
    status: 422,
    code: 'sign_in_experiences.at_least_one_authentication_factor',
    data: { identifier: 'email' },
  },
  {
    why: 'a code sent to a username',
    body: { signIn: { methods: [method('username', true, true)] } },
    status: 422,
    code: 'sign_in_experiences.verification_code_requires_email_or_phone',
    data: { identifier: 'username' },
  },
  {
    why: 'a sign-up identifier twice',
    body: { signUp: signUp(['email', 'email'], true, true) },
    status: 422,
    code: 'sign_in_experiences.duplicated_sign_up_identifiers',
  },
  {
    why: 'username and email at sign-up',
    body: { signUp: signUp(['username', 'email'], true, true) },
    status: 422,
    code: 'sign_in_experiences.unsupported_sign_up_identifiers',
  },
  {
    why: 'no sign-up identifier but verify',
    body: { signUp: signUp([], false, true) },
    status: 422,
    code: 'sign_in_experiences.missing_sign_up_identifiers',
  },
  {
    why: 'no sign-up identifier but a password',
    body: { signInMode: 'SignIn', signUp: signUp([], true, false) },
    status: 422,
    code: 'sign_in_experiences.missing_sign_up_identifiers',
  },
  {
    why: 'sign-up by username without password',
    body: { signUp: signUp(['username'], false, false) },
    status: 422,
    code: 'sign_in_experiences.username_requires_password',
  },
  {
    why: 'sign-up by email without verify',
    body: { signUp: signUp(['email'], true, false) },
    status: 422,
    code: 'sign_in_experiences.passwordless_requires_verify',
  },
  {
    why: 'verify with username sign-up',
    body: { signUp: signUp(['username'], true, true) },
    status: 422,
    code: 'sign_in_experiences.verify_requires_email_or_phone',
  },
  {
    why: 'sign-up by phone nobody can sign in with',
    body: { signUp: signUp(['phone'], false, true) },
    status: 422,
    code: 'sign_in_experiences.miss_sign_up_identifier_in_sign_in',
    data: { identifier: 'phone' },
  },
  {
    why: 'the stored sign-up identifier removed from sign-in',
    body: { signIn: { methods: [method('email', true, true)] } },
    status: 422,
    code: 'sign_in_experiences.miss_sign_up_identifier_in_sign_in',
    data: { identifier: 'username' },
  },
  {
    why: 'a sign-up password with code-only sign-in',
    body: {
      signIn: { methods: [method('username', true, false), method('email', false, true)] },
      signUp: signUp(['email'], true, true),
    },
    status: 422,
    code: 'sign_in_experiences.password_sign_in_must_be_enabled',
    data: { identifier: 'email' },
  },
  {
    why: 'passwordless sign-up with password-only sign-in',
    body: {
      signIn: { methods: [method('username', true, false), method('email', true, false)] },
      signUp: signUp(['email'], false, true),
    },
    status: 422,
    code: 'sign_in_experiences.code_sign_in_must_be_enabled',
    data: { identifier: 'email' },
  },
  {
    why: 'secondary identifiers without a primary one',
    body: {
      signInMode: 'SignIn',
      signUp: { ...signUp([], false, false), secondaryIdentifiers: [{ identifier: 'username' }] },
    },
    status: 422,
    code: 'sign_in_experiences.missing_sign_up_identifiers',
  },
  {
    why: 'a secondary identifier that is the primary one',
    body: { signUp: { ...signUp(['username'], true, false), secondaryIdentifiers: [{ identifier: 'username' }] } },
    status: 422,
    code: 'sign_in_experiences.duplicated_sign_up_identifiers',
  },
  {
    why: 'a secondary identifier twice',
    body: {
      signUp: {
        ...signUp(['username'], true, true),
        secondaryIdentifiers: [
          { identifier: 'email', verify: true },
          { identifier: 'email', verify: true },
        ],
      },
    },
    status: 422,
    code: 'sign_in_experiences.duplicated_sign_up_identifiers',
  },
  {
    why: 'a secondary email or phone beside a primary email',
    body: {
      signUp: {
        ...signUp(['email'], true, true),
        secondaryIdentifiers: [{ identifier: 'emailOrPhone', verify: true }],
      },
    },
    status: 422,
    code: 'sign_in_experiences.duplicated_sign_up_identifiers',
  },
  {
    why: 'a secondary email without verify',
    body: { signUp: { ...signUp(['username'], true, true), secondaryIdentifiers: [{ identifier: 'email' }] } },
    status: 422,
    code: 'sign_in_experiences.passwordless_requires_verify',
    data: { identifier: 'email' },
  },
  {
    why: 'a secondary phone with verify off at sign-up',
    body: {
      signUp: { ...signUp(['username'], true, false), secondaryIdentifiers: [{ identifier: 'phone', verify: true }] },
    },
    status: 422,
    code: 'sign_in_experiences.passwordless_requires_verify',
    data: { identifier: 'phone' },
  },
  {
    why: 'minimum length above the maximum',
    body: { passwordPolicy: { length: { min: 20, max: 12 } } },
    status: 422,
    code: 'sign_in_experiences.invalid_password_length',
    data: { min: 20, max: 12 },
  },
];

const MALFORMED: Refusal[] = [
  { why: 'an unknown sign-in mode', body: { signInMode: 'Anything' }, status: 400, code: 'guard.invalid_input' },
  { why: 'a key Logto does not have', body: { theme: 'dark' }, status: 400, code: 'guard.invalid_input' },
  {
    why: 'an unknown identifier',
    body: { signIn: { methods: [method('nickname', true, false)] } },
    status: 400,
    code: 'guard.invalid_input',
  },
  {
    why: 'an incomplete sign-up',
    body: { signUp: { identifiers: ['username'] } },
    status: 400,
    code: 'guard.invalid_input',
  },
  {
    why: 'a maximum length above 256',
    body: { passwordPolicy: { length: { max: 1000 } } },
    status: 400,
    code: 'guard.invalid_input',
  },
  {
    why: 'five character types',
    body: { passwordPolicy: { characterTypes: { min: 5 } } },
    status: 400,
    code: 'guard.invalid_input',
  },
  {
    why: 'a logo that is not an http(s) URL',
    body: { branding: { logoUrl: 'javascript:alert(1)' } },
    status: 400,
    code: 'guard.invalid_input',
  },
  { why: 'another id', body: { id: 'tenant' }, status: 400, code: 'guard.invalid_input' },
  { why: 'an array', body: [], status: 400, code: 'guard.invalid_input' },
  {
    why: 'a secondary identifier Logto does not have',
    body: { signUp: { ...signUp(['username'], true, false), secondaryIdentifiers: [{ identifier: 'nickname' }] } },
    status: 400,
    code: 'guard.invalid_input',
  },
  {
    why: 'automaticAccountLinking that is not a boolean',
    body: { socialSignIn: { automaticAccountLinking: 'yes' } },
    status: 400,
    code: 'guard.invalid_input',
  },
];

describe('sign-in experience settings refused, never stored', () => {
  let h: Harness;
  let before: unknown;
  beforeEach(async () => {
    h = await startHarness();
    before = (await h.api('GET', '/sign-in-exp')).body;
  });
  afterEach(() => h.close());

  for (const [group, cases] of [
    ['unsupported Logto settings', UNSUPPORTED],
    ['inconsistent combinations', INCONSISTENT],
    ['malformed patches', MALFORMED],
  ] as const) {
    describe(group, () => {
      for (const refusal of cases) {
        it(`${refusal.why}: ${refusal.status} ${refusal.code}`, async () => {
          const res = await h.api('PATCH', '/sign-in-exp', refusal.body);
          expect(res.status, JSON.stringify(res.body)).to.equal(refusal.status);
          expect(res.body.code).to.equal(refusal.code);
          expect(res.body.message).to.be.a('string').and.not.empty;
          if (refusal.data) expect(res.body.data).to.deep.equal(refusal.data);
          expect((await h.api('GET', '/sign-in-exp')).body, 'the stored settings are unchanged').to.deep.equal(before);
          expect(await h.running.service.records.signInExperience.find(), 'nothing was written').to.equal(null);
        });
      }
    });
  }
});
