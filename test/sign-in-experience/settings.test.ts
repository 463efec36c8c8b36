import { expect } from 'chai';
import { startHarness, type Harness } from '../support/management/harness.ts';

const DEFAULTS = {
  id: 'default',
  signInMode: 'SignInAndRegister',
  signIn: {
    methods: [
      { identifier: 'username', password: true, verificationCode: false, isPasswordPrimary: true },
      { identifier: 'email', password: true, verificationCode: true, isPasswordPrimary: true },
    ],
  },
  signUp: { identifiers: ['username'], password: true, verify: false },
  passwordPolicy: {
    length: { min: 8, max: 256 },
    characterTypes: { min: 1 },
    rejects: { pwned: false, commonPasswords: true, repetitionAndSequence: false, userInfo: true, words: [] },
  },
  branding: {},
  mfa: { factors: [], policy: 'UserControlled', organizationRequiredMfaPolicy: 'NoPrompt' },
  sentinelPolicy: {},
  forgotPasswordMethods: null,
  singleSignOnEnabled: true,
  // Ours, not Logto's: see docs/impersonation.md.
  impersonation: { requireReason: false, notifyByEmail: false },
  socialSignIn: {},
};

const method = (identifier: string, password: boolean, verificationCode: boolean, isPasswordPrimary = password) => ({
  identifier,
  password,
  verificationCode,
  isPasswordPrimary,
});

describe('sign-in experience settings: GET/PATCH /api/sign-in-exp', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(() => h.close());

  async function patch(body: unknown) {
    const res = await h.api('PATCH', '/sign-in-exp', body);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    const read = await h.api('GET', '/sign-in-exp');
    expect(read.body, 'GET answers what PATCH answered').to.deep.equal(res.body);
    return read.body;
  }

  it('answers the defaults until first changed', async () => {
    const res = await h.api('GET', '/sign-in-exp');
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal(DEFAULTS);
  });

  it('needs a management token', async () => {
    const res = await h.running.request('/api/sign-in-exp', { token: 'not-a-token' });
    expect(res.status).to.equal(401);
    expect(((await res.json()) as { code: string }).code).to.equal('auth.unauthorized');
  });

  it('stores signInMode, leaving every other setting as it was', async () => {
    expect(await patch({ signInMode: 'SignIn' })).to.deep.equal({ ...DEFAULTS, signInMode: 'SignIn' });
    expect((await patch({ signInMode: 'Register' })).signInMode).to.equal('Register');
  });

  it('stores sign-in methods', async () => {
    const methods = [method('username', true, false), method('email', false, true), method('phone', true, true, false)];
    expect(await patch({ signIn: { methods } })).to.deep.equal({ ...DEFAULTS, signIn: { methods } });
  });

  it('stores no sign-in method (Logto: social and enterprise sign-in only) in every sign-in mode, with no connector set up', async () => {
    const socialOnly = { identifiers: [], password: false, verify: false };
    const stored = await patch({ signIn: { methods: [] }, signUp: socialOnly });
    expect(stored).to.deep.equal({ ...DEFAULTS, signIn: { methods: [] }, signUp: socialOnly });
    expect((await patch({ signInMode: 'SignIn' })).signIn.methods).to.deep.equal([]);
    expect((await patch({ signInMode: 'Register', singleSignOnEnabled: false })).signIn.methods).to.deep.equal([]);
    const back = [method('username', true, false)];
    expect((await patch({ signIn: { methods: back } })).signIn.methods, 'and back to a method').to.deep.equal(back);
  });

  it('stores each supported sign-up shape', async () => {
    const byEmail = { identifiers: ['email'], password: false, verify: true };
    expect((await patch({ signUp: byEmail })).signUp).to.deep.equal(byEmail);

    const emailOrPhone = { identifiers: ['email', 'phone'], password: true, verify: true };
    const methods = [method('email', true, true), method('phone', true, true)];
    const both = await patch({ signIn: { methods }, signUp: emailOrPhone });
    expect([both.signIn.methods, both.signUp]).to.deep.equal([methods, emailOrPhone]);

    const byPhone = { identifiers: ['phone'], password: false, verify: true };
    expect((await patch({ signUp: byPhone })).signUp).to.deep.equal(byPhone);

    const none = { identifiers: [], password: false, verify: false };
    const closed = await patch({ signInMode: 'SignIn', signUp: none });
    expect([closed.signInMode, closed.signUp]).to.deep.equal(['SignIn', none]);

    const byUsername = { identifiers: ['username'], password: true, verify: false };
    expect(
      (await patch({ signIn: { methods: [method('username', true, false)] }, signUp: byUsername })).signUp,
    ).to.deep.equal(byUsername);

    const withSecondary = {
      identifiers: ['username'],
      password: true,
      verify: true,
      secondaryIdentifiers: [{ identifier: 'emailOrPhone', verify: true }],
    };
    expect((await patch({ signUp: withSecondary })).signUp).to.deep.equal(withSecondary);
    expect((await patch({ signUp: byUsername })).signUp, 'a sign-up patch replaces the stored one whole').to.deep.equal(
      byUsername,
    );
  });

  it('stores socialSignIn.automaticAccountLinking; a socialSignIn patch replaces the stored one whole', async () => {
    expect((await patch({ socialSignIn: { automaticAccountLinking: true } })).socialSignIn).to.deep.equal({
      automaticAccountLinking: true,
    });
    expect((await patch({ signInMode: 'SignIn' })).socialSignIn, 'another patch leaves it').to.deep.equal({
      automaticAccountLinking: true,
    });
    expect(
      (await patch({ socialSignIn: { skipRequiredIdentifiers: true } })).socialSignIn,
      'skipRequiredIdentifiers is stored, and the linking left out is gone',
    ).to.deep.equal({ skipRequiredIdentifiers: true });
    expect((await patch({ socialSignIn: {} })).socialSignIn).to.deep.equal({});
  });

  it('stores a password policy; the parts a patch leaves out take their defaults, as in Logto', async () => {
    const full = {
      length: { min: 12, max: 64 },
      characterTypes: { min: 3 },
      rejects: {
        pwned: false,
        commonPasswords: false,
        repetitionAndSequence: true,
        userInfo: false,
        words: ['acme', 'rocket'],
      },
    };
    expect((await patch({ passwordPolicy: full })).passwordPolicy).to.deep.equal(full);
    expect((await patch({ passwordPolicy: { length: { min: 10 } } })).passwordPolicy).to.deep.equal({
      ...DEFAULTS.passwordPolicy,
      length: { min: 10, max: 256 },
    });
    expect((await patch({ passwordPolicy: { rejects: { words: ['acme'] } } })).passwordPolicy).to.deep.equal({
      ...DEFAULTS.passwordPolicy,
      rejects: { ...DEFAULTS.passwordPolicy.rejects, words: ['acme'] },
    });
  });

  it('stores branding logos; a branding patch replaces the stored one whole', async () => {
    const branding = { logoUrl: 'https://cdn.example.com/logo.svg', darkLogoUrl: 'https://cdn.example.com/dark.svg' };
    expect((await patch({ branding })).branding).to.deep.equal(branding);
    expect((await patch({ branding: { logoUrl: branding.logoUrl } })).branding).to.deep.equal({
      logoUrl: branding.logoUrl,
    });
    expect((await patch({ branding: {} })).branding).to.deep.equal({});
  });

  it('takes back what GET answered, id included, unchanged', async () => {
    await patch({ signInMode: 'SignIn', branding: { logoUrl: 'https://cdn.example.com/logo.svg' } });
    const current = (await h.api('GET', '/sign-in-exp')).body;
    expect(await patch(current)).to.deep.equal(current);
  });

  it('keeps both of two concurrent patches of different settings', async () => {
    const results = await Promise.all([
      h.api('PATCH', '/sign-in-exp', { signInMode: 'SignIn' }),
      h.api('PATCH', '/sign-in-exp', { branding: { logoUrl: 'https://cdn.example.com/logo.svg' } }),
      h.api('PATCH', '/sign-in-exp', { passwordPolicy: { length: { min: 9 } } }),
    ]);
    expect(results.map((res) => res.status)).to.deep.equal([200, 200, 200]);
    const read = (await h.api('GET', '/sign-in-exp')).body;
    expect([read.signInMode, read.branding.logoUrl, read.passwordPolicy.length.min]).to.deep.equal([
      'SignIn',
      'https://cdn.example.com/logo.svg',
      9,
    ]);
  });

  it('publishes no webhook event, as Logto does not', async () => {
    await patch({ signInMode: 'SignIn' });
    expect(h.events).to.deep.equal([]);
  });

  it('is in the OpenAPI document', async () => {
    const swagger = (await h.api('GET', '/swagger.json')).body;
    expect(Object.keys(swagger.paths['/api/sign-in-exp'])).to.have.members(['get', 'patch']);
  });
});
