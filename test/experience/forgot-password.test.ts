import { expect } from 'chai';
import { codeFrom } from '../support/mailbox.ts';
import { json, startExperienceHarness, uniqueName, type ExperienceHarness } from '../support/experience.ts';

const OLD = 'Forgotten-Pass-1';
const NEW = 'Remembered-Pass-2';

describe('Experience API: forgot password', () => {
  let h: ExperienceHarness;

  before(async () => {
    h = await startExperienceHarness();
  });
  after(() => h.close());

  async function user() {
    const email = `${uniqueName('fp')}@example.com`;
    const res = await h.running.request('/api/users', {
      method: 'POST',
      json: { username: uniqueName('fp'), primaryEmail: email, password: OLD },
    });
    return json(res);
  }

  it("takes Logto's forgotPasswordMethods: a reset by a method it leaves out is refused, and an empty list offers none on the pages", async () => {
    const frank = await user();
    expect((await json(h.running.request('/api/sign-in-exp'))).forgotPasswordMethods, "Logto's default").to.equal(null);
    await h.signInExperience({ forgotPasswordMethods: ['PhoneVerificationCode'] });
    try {
      const client = h.client();
      await client.open(h.app);
      await client.ok('PUT', '', { interactionEvent: 'ForgotPassword' });
      const verificationId = await client.verifyEmail(h.mailbox, frank.primaryEmail, 'ForgotPassword');
      const refused = await client.api('POST', '/identification', { verificationId });
      expect([refused.status, refused.body.code]).to.deep.equal([400, 'session.not_supported_for_forgot_password']);

      await h.signInExperience({ forgotPasswordMethods: [] });
      const pages = h.client();
      const uid = await pages.open(h.app);
      const signIn = await pages.browser.request(`${h.running.baseUrl}/interaction/${uid}`);
      expect(await signIn.text())
        .to.include('Sign in')
        .and.not.include('Forgot password?');
      const forgot = await pages.browser.request(`${h.running.baseUrl}/interaction/${uid}/forgot-password`, {
        redirect: 'manual',
      });
      expect([forgot.status, forgot.headers.get('location')], 'back to the sign-in page').to.deep.equal([
        303,
        `${h.running.baseUrl}/interaction/${uid}`,
      ]);
      const duplicate = await h.running.request('/api/sign-in-exp', {
        method: 'PATCH',
        json: { forgotPasswordMethods: ['EmailVerificationCode', 'EmailVerificationCode'] },
      });
      expect(duplicate.status).to.equal(400);
    } finally {
      await h.signInExperience({ forgotPasswordMethods: null });
    }
    expect((await json(h.running.request('/api/sign-in-exp'))).forgotPasswordMethods).to.equal(null);
  });

  it('resets the password with an emailed code (PostResetPassword, User.Data.Updated), then signs in with it for tokens', async () => {
    const frank = await user();
    const client = h.client();
    const uid = await client.open(h.app);
    await client.ok('PUT', '', { interactionEvent: 'ForgotPassword' });
    const early = await client.api('PUT', '/profile/password', { password: NEW });
    expect(early.status).to.equal(404);
    expect(early.body.code).to.equal('session.identifier_not_found');
    const verificationId = await client.verifyEmail(h.mailbox, frank.primaryEmail, 'ForgotPassword');
    expect((await client.api('POST', '/identification', { verificationId })).status).to.equal(204);
    const notSubmittable = await client.api('POST', '/submit');
    expect(notSubmittable.status).to.equal(422);
    expect(notSubmittable.body.code).to.equal('user.new_password_required_in_profile');

    const same = await client.api('PUT', '/profile/password', { password: OLD });
    expect(same.status).to.equal(422);
    expect(same.body.code).to.equal('user.same_password');
    const weak = await client.api('PUT', '/profile/password', { password: 'password' });
    expect(weak.status).to.equal(422);
    expect(weak.body.code).to.equal('password.rejected');
    expect((await client.api('PUT', '/profile/password', { password: NEW })).status).to.equal(204);
    const { redirectTo } = await client.ok('POST', '/submit');
    expect(redirectTo).to.equal(`${h.running.baseUrl}/interaction/${uid}`);

    const reset = await h.delivery('PostResetPassword', (payload) => payload.userId === frank.id);
    expect(reset).to.include({ interactionEvent: 'ForgotPassword' });
    expect(reset.application.id).to.equal(h.app.id);
    const updated = await h.delivery('User.Data.Updated', (payload) => payload.data.id === frank.id);
    expect(updated).to.include({ interactionEvent: 'ForgotPassword', applicationId: h.app.id });
    expect(JSON.stringify([reset, updated])).not.to.match(/Remembered-Pass|passwordDigest|scrypt/);

    // The same OIDC interaction goes on: sign in with the new password.
    await client.ok('PUT', '', { interactionEvent: 'SignIn' });
    const stale = await client.api('POST', '/verification/password', {
      identifier: { type: 'email', value: frank.primaryEmail },
      password: OLD,
    });
    expect(stale.body.code).to.equal('session.invalid_credentials');
    const { verificationId: passwordId } = await client.ok('POST', '/verification/password', {
      identifier: { type: 'email', value: frank.primaryEmail },
      password: NEW,
    });
    await client.ok('POST', '/identification', { verificationId: passwordId });
    const tokens = await client.submitForTokens();
    expect(tokens.claims()!.sub).to.equal(frank.id);
    await h.delivery('PostSignIn', (payload) => payload.userId === frank.id);
  });

  it('takes only a code verification (400 session.not_supported_for_forgot_password) and never switches to sign-in', async () => {
    const grace = await user();
    const client = h.client();
    await client.open(h.app);
    await client.ok('PUT', '', { interactionEvent: 'ForgotPassword' });
    const { verificationId } = await client.ok('POST', '/verification/password', {
      identifier: { type: 'email', value: grace.primaryEmail },
      password: OLD,
    });
    const identified = await client.api('POST', '/identification', { verificationId });
    expect(identified.status).to.equal(400);
    expect(identified.body.code).to.equal('session.not_supported_for_forgot_password');
    const switched = await client.api('PUT', '/interaction-event', { interactionEvent: 'SignIn' });
    expect(switched.status).to.equal(400);
    expect(switched.body.code).to.equal('session.not_supported_for_forgot_password');
    const profile = await client.api('POST', '/profile', { type: 'username', value: uniqueName('x') });
    expect(profile.body.code).to.equal('session.not_supported_for_forgot_password');
  });

  it('sends nothing to an address no account has, answers the same, and that code never verifies', async () => {
    const known = await user();
    const stranger = `${uniqueName('stranger')}@example.com`;
    const send = async (client: ReturnType<ExperienceHarness['client']>, email: string) => {
      await client.open(h.app);
      await client.ok('PUT', '', { interactionEvent: 'ForgotPassword' });
      return client.api('POST', '/verification/verification-code', {
        identifier: { type: 'email', value: email },
        interactionEvent: 'ForgotPassword',
      });
    };
    const toKnown = await send(h.client(), known.primaryEmail);
    const strangerClient = h.client();
    const toStranger = await send(strangerClient, stranger);
    expect(toStranger.status).to.equal(toKnown.status);
    expect(Object.keys(toStranger.body)).to.deep.equal(Object.keys(toKnown.body));
    // Codes go out after the answer: the known address gets one; the stranger's send, answered later, schedules none.
    const knownCode = codeFrom(await h.mailbox.waitFor(known.primaryEmail));
    expect(h.mailbox.messages(known.primaryEmail)).to.have.length(1);
    expect(h.mailbox.messages(stranger)).to.deep.equal([]);

    const guess = await strangerClient.api('POST', '/verification/verification-code/verify', {
      identifier: { type: 'email', value: stranger },
      verificationId: toStranger.body.verificationId,
      code: knownCode,
    });
    expect(guess.status).to.equal(400);
    expect(guess.body.code).to.equal('verification_code.code_mismatch');
  });
});
