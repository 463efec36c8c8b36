import { expect } from 'chai';
import { createUser } from '../support/fixtures.ts';
import { codeFrom, startMailbox, type Mailbox } from '../support/mailbox.ts';
import { startService, type RunningService } from '../support/service.ts';
import { expectSecurePage, openSignIn, post, type Interaction } from '../support/security.ts';

const unique = (prefix: string) => `${prefix}${Math.random().toString(36).slice(2, 10)}`;

describe('sign-in pages: forms, settings and refusals over HTTP', () => {
  let running: RunningService;
  let mailbox: Mailbox;

  before(async () => {
    mailbox = await startMailbox();
    running = await startService({ env: { SMTP_URL: mailbox.url, LOCKOUT_THRESHOLD: '3' } });
  });
  after(async () => {
    await running.close();
    await mailbox.close();
  });

  async function signInExperience(patch: Record<string, unknown>): Promise<void> {
    const res = await running.request('/api/sign-in-exp', { method: 'PATCH', json: patch });
    expect(res.status, await res.clone().text()).to.equal(200);
  }
  const EMAIL_SIGN_UP = { signUp: { identifiers: ['email'], password: true, verify: true } };
  const USERNAME_SIGN_UP = { signUp: { identifiers: ['username'], password: true, verify: false } };

  /** Posts a form of the interaction with its token; returns the status, the page and where it redirects. */
  async function submit(signIn: Interaction, step: string, fields: Record<string, string>) {
    const res = await post(signIn, step, { csrf_token: signIn.token, ...fields });
    const html = await res.text();
    return { status: res.status, html, location: res.headers.get('location'), res };
  }

  /** Sends a code from `step` and answers the page that asks for it. */
  async function sendCode(signIn: Interaction, step: string, identifier: string) {
    const sent = await submit(signIn, step, { identifier });
    expect(sent.status, sent.html).to.equal(303);
    const page = await signIn.browser.request(sent.location!);
    return page.text();
  }

  it('refuses every new form without its CSRF token (403), sending and creating nothing', async () => {
    const signIn = await openSignIn(running);
    const email = `${unique('forged')}@example.com`;
    const username = unique('forged_');
    for (const [step, fields] of [
      ['/sign-up', { username, password: 'Forged-Password-1' }],
      ['/sign-up/send-code', { identifier: email }],
      ['/sign-in/send-code', { identifier: email }],
      ['/forgot-password/send-code', { identifier: email }],
      ['/sign-in/code', { code: '123456' }],
      ['/forgot-password/code', { code: '123456', password: 'Forged-Password-1' }],
      ['/sign-up/resend', {}],
    ] as const) {
      const res = await post(signIn, step, fields);
      expect(res.status, step).to.equal(403);
      const html = await res.text();
      expect(html).to.include('not accepted');
      expectSecurePage(res, html);
    }
    expect(mailbox.messages(email)).to.have.length(0);
    expect(await running.service.records.users.findWithSecrets({ username })).to.equal(null);
  });

  it('shows a taken username on its field (409) and a missing password on its own (400)', async () => {
    const taken = await createUser(running);
    const signIn = await openSignIn(running);
    const clash = await submit(signIn, '/sign-up', { username: String(taken.username), password: 'Fresh-Password-4' });
    expect(clash.status).to.equal(409);
    expect(clash.html).to.match(
      /id="sign-up-username"[^>]*aria-invalid="true"[^>]*aria-describedby="sign-up-username-hint sign-up-username-error"/,
    );
    expect(clash.html).to.include('This username is taken.');
    expectSecurePage(clash.res, clash.html);
    const empty = await submit(signIn, '/sign-up', { username: unique('fresh_'), password: '' });
    expect(empty.status).to.equal(400);
    expect(empty.html).to.match(/id="sign-up-password"[^>]*aria-invalid="true"/);
  });

  it('asks a registration for the secondary identifier it lacks on "Complete your account", proved by a code', async () => {
    await signInExperience({
      signUp: {
        identifiers: ['username'],
        password: true,
        verify: true,
        secondaryIdentifiers: [{ identifier: 'emailOrPhone', verify: true }],
      },
    });
    try {
      const username = unique('second_');
      const email = `${username}@example.com`;
      const signIn = await openSignIn(running);
      const asked = await submit(signIn, '/sign-up', { username, password: 'Fresh-Password-4' });
      expect(asked.status, asked.html).to.equal(303);
      expect(asked.location).to.equal(`${signIn.url}/profile?missing=emailOrPhone`);
      const step = await (await signIn.browser.request(asked.location!)).text();
      expect(step).to.include('needs an email address or a phone number').and.include('Email or phone number');
      expect(step, 'the username and password are in the profile already').not.to.include('name="password"');
      const noCode = await submit(signIn, '/profile/code?missing=emailOrPhone', { code: '123456' });
      expect(noCode.status, 'no code was sent yet: back to the step').to.equal(303);
      expect(noCode.location).to.equal(`${signIn.url}/profile?missing=emailOrPhone`);
      const sent = await submit(signIn, '/profile?missing=emailOrPhone', { identifier: email });
      expect(sent.status, sent.html).to.equal(303);
      expect(sent.location).to.equal(`${signIn.url}/profile/code?missing=emailOrPhone`);
      const code = codeFrom(await mailbox.waitFor(email));
      const wrong = await submit(signIn, '/profile/code?missing=emailOrPhone', {
        code: code === '000000' ? '111111' : '000000',
      });
      expect(wrong.status).to.equal(400);
      expect(wrong.html).to.match(/id="verify-code"[^>]*aria-invalid="true"/);
      expect(await running.service.records.users.findWithSecrets({ username }), 'no account yet').to.equal(null);
      const done = await submit(signIn, '/profile/code?missing=emailOrPhone', { code });
      expect(done.status, done.html).to.equal(303);
      const created = await running.service.records.users.findWithSecrets({ username });
      expect(created?.user).to.include({ username, primaryEmail: email });
    } finally {
      await signInExperience(USERNAME_SIGN_UP);
    }
  });

  it('asks an account signing in without the required email for it, and mails the code while registration is off', async () => {
    await signInExperience({
      signInMode: 'SignIn',
      signUp: {
        identifiers: ['username'],
        password: true,
        verify: true,
        secondaryIdentifiers: [{ identifier: 'email', verify: true }],
      },
    });
    try {
      const user = await createUser(running, [], {}, 'Fresh-Password-4');
      const email = `${unique('signin')}@example.com`;
      const signIn = await openSignIn(running);
      const asked = await submit(signIn, '/login', { identifier: String(user.username), password: 'Fresh-Password-4' });
      expect(asked.status, asked.html).to.equal(303);
      expect(asked.location).to.equal(`${signIn.url}/profile?missing=email`);
      await signIn.browser.request(asked.location!);
      const sent = await submit(signIn, '/profile?missing=email', { identifier: email });
      expect(sent.status, sent.html).to.equal(303);
      const code = codeFrom(await mailbox.waitFor(email));
      const done = await submit(signIn, '/profile/code?missing=email', { code });
      expect(done.status, done.html).to.equal(303);
      const stored = await running.service.records.users.findWithSecrets({ id: user.id });
      expect(stored?.user.primaryEmail).to.equal(email);
    } finally {
      await signInExperience({ signInMode: 'SignInAndRegister', ...USERNAME_SIGN_UP });
    }
  });

  it('follows signInMode: no way to register when it is off, only registration when sign-in is', async () => {
    await signInExperience({ signInMode: 'SignIn' });
    try {
      const signIn = await openSignIn(running);
      expect(signIn.html).not.to.include('Create account');
      const closed = await signIn.browser.request(`${signIn.url}/sign-up`);
      expect(closed.status).to.equal(403);
      expect(await closed.text()).to.include('Registration is not available');
    } finally {
      await signInExperience({ signInMode: 'SignInAndRegister' });
    }
    await signInExperience({ signInMode: 'Register' });
    try {
      const registerOnly = await openSignIn(running);
      expect(registerOnly.html)
        .to.include('Create your')
        .and.not.include('Sign in instead')
        .and.not.include('autocomplete="current-password"');
    } finally {
      await signInExperience({ signInMode: 'SignInAndRegister' });
    }
  });

  it('with no sign-in method and no connector, says there is no way to sign in, and refuses the forms posted anyway', async () => {
    const user = await createUser(running, [], { primaryEmail: `${unique('none')}@example.com` }, 'Fresh-Password-4');
    await signInExperience({ signIn: { methods: [] }, signUp: { identifiers: [], password: false, verify: false } });
    try {
      const signIn = await openSignIn(running);
      expect(signIn.html)
        .to.include('No way to sign in is set up for this service yet.')
        .and.not.include('<input name="identifier"')
        .and.not.include('Forgot password?')
        .and.not.include('Create account')
        .and.not.include('Or continue with');
      const byPassword = await submit(signIn, '/login', {
        identifier: String(user.username),
        password: 'Fresh-Password-4',
      });
      expect(byPassword.status).to.equal(400);
      expect(byPassword.html).to.include('This way of signing in is not enabled.');
      const byCode = await submit(signIn, '/sign-in/send-code', { identifier: String(user.primaryEmail) });
      expect(byCode.status).to.equal(400);
      expect(byCode.html).to.include('This way of signing in is not enabled.');
    } finally {
      await signInExperience({
        signIn: {
          methods: [
            { identifier: 'username', password: true, verificationCode: false, isPasswordPrimary: true },
            { identifier: 'email', password: true, verificationCode: true, isPasswordPrimary: true },
          ],
        },
        ...USERNAME_SIGN_UP,
      });
    }
  });

  it('offers "Sign in instead" when a code sign-up names an email that has an account', async () => {
    await signInExperience(EMAIL_SIGN_UP);
    try {
      const email = `${unique('owner')}@example.com`;
      await createUser(running, [], { primaryEmail: email });
      const signIn = await openSignIn(running);
      await sendCode(signIn, '/sign-up/send-code', email);
      const code = codeFrom(await mailbox.waitFor(email));
      const clash = await submit(signIn, '/sign-up/code', { code, password: 'Fresh-Password-4' });
      expect(clash.status).to.equal(409);
      expect(clash.html).to.include('role="alert"').and.include('An account already uses this email address.');
      expect(clash.html).to.include(`<a href="${signIn.url}">Sign in instead</a>`);
    } finally {
      await signInExperience(USERNAME_SIGN_UP);
    }
  });

  it('offers "Create account" when a sign-in code proves an address without an account', async () => {
    const email = `${unique('nobody')}@example.com`;
    const signIn = await openSignIn(running);
    await sendCode(signIn, '/sign-in/send-code', email);
    const answer = await submit(signIn, '/sign-in/code', { code: codeFrom(await mailbox.waitFor(email)) });
    expect(answer.status).to.equal(404);
    expect(answer.html)
      .to.include('No account uses this address.')
      .and.include(`<a href="${signIn.url}/sign-up">Create account</a>`);
  });

  it('sends no reset code to an address without an account, and accepts none, answering as for any address', async () => {
    const email = `${unique('ghost')}@example.com`;
    const signIn = await openSignIn(running);
    const page = await sendCode(signIn, '/forgot-password/send-code', email);
    expect(page).to.include(`We sent a code to <strong>${email}</strong>`);
    const guess = await submit(signIn, '/forgot-password/code', { code: '123456', password: 'Brand-New-Password-5' });
    expect(guess.status).to.equal(400);
    expect(guess.html).to.include('The code is not right');
    expect(mailbox.messages(email)).to.have.length(0);
  });

  it('shows the lockout after wrong codes as a message (429), never an error page', async () => {
    const email = `${unique('guesser')}@example.com`;
    await createUser(running, [], { primaryEmail: email });
    const signIn = await openSignIn(running);
    await sendCode(signIn, '/sign-in/send-code', email);
    const code = codeFrom(await mailbox.waitFor(email));
    const wrong = code === '000000' ? '111111' : '000000';
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 3; attempt += 1)
      statuses.push((await submit(signIn, '/sign-in/code', { code: wrong })).status);
    expect(statuses).to.deep.equal([400, 400, 429]);
    const locked = await submit(signIn, '/sign-in/code', { code });
    expect(locked.status, 'even the right code while locked').to.equal(429);
    expect(locked.html).to.include('Too many failed attempts').and.include('role="alert"');
    expectSecurePage(locked.res, locked.html);
  });
});
