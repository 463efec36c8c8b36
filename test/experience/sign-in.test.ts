import { expect } from 'chai';
import { json, startExperienceHarness, uniqueName, type ExperienceHarness } from '../support/experience.ts';

const PASSWORD = 'Sign-In-Pass-31';
/** The harness's sign-in methods, which a test that changes them puts back. */
const HARNESS_METHODS = [
  { identifier: 'username', password: true, verificationCode: false, isPasswordPrimary: true },
  { identifier: 'email', password: true, verificationCode: true, isPasswordPrimary: true },
];

describe('Experience API: sign-in', () => {
  let h: ExperienceHarness;

  before(async () => {
    h = await startExperienceHarness();
  });
  after(() => h.close());

  async function user(fields: Record<string, unknown> = {}) {
    const res = await h.running.request('/api/users', {
      method: 'POST',
      json: { username: uniqueName('u'), password: PASSWORD, ...fields },
    });
    expect(res.status).to.equal(201);
    return json(res);
  }

  it('signs in with a username and a password: tokens at the client, PostSignIn with the user and the application', async () => {
    const alice = await user();
    const client = h.client();
    await client.open(h.app);
    await client.ok('PUT', '', { interactionEvent: 'SignIn' });
    const { verificationId } = await client.ok('POST', '/verification/password', {
      identifier: { type: 'username', value: alice.username },
      password: PASSWORD,
    });
    expect((await client.api('POST', '/identification', { verificationId })).status).to.equal(204);
    const tokens = await client.submitForTokens();
    expect(tokens.claims()!.sub).to.equal(alice.id);

    const signedIn = await h.delivery('PostSignIn', (payload) => payload.userId === alice.id);
    expect(signedIn).to.include({ interactionEvent: 'SignIn', userAgent: 'experience-tests/1.0' });
    expect(signedIn.sessionId).to.be.a('string');
    expect(signedIn.userIp).to.be.a('string');
    expect(signedIn.application).to.deep.equal({
      id: h.app.id,
      type: 'Traditional',
      name: signedIn.application.name,
      description: null,
    });
    expect(signedIn.user).to.include({ id: alice.id, username: alice.username, hasPassword: true });
    expect(signedIn.user.lastSignInAt).to.be.a('number');
    expect(JSON.stringify(signedIn)).not.to.match(/passwordDigest|scrypt|Sign-In-Pass/);
    const aboutAlice = h.published().filter((event) => event.userId === alice.id || event.data?.id === alice.id);
    expect(
      aboutAlice.map((event) => event.event),
      'no profile change, no User.Data.Updated',
    ).to.deep.equal(['User.Created', 'PostSignIn']);
  });

  it('signs in with a code sent to the email address', async () => {
    const bob = await user({ primaryEmail: `${uniqueName('bob')}@example.com` });
    const client = h.client();
    await client.open(h.app);
    await client.ok('PUT', '', { interactionEvent: 'SignIn' });
    const verificationId = await client.verifyEmail(h.mailbox, bob.primaryEmail, 'SignIn');
    await client.ok('POST', '/identification', { verificationId });
    const tokens = await client.submitForTokens();
    expect(tokens.claims()!.sub).to.equal(bob.id);
    await h.delivery('PostSignIn', (payload) => payload.userId === bob.id);
  });

  it('answers a wrong password and an unknown account alike (422 session.invalid_credentials), and refuses suspended accounts', async () => {
    const carol = await user();
    const client = h.client();
    await client.open(h.app);
    await client.ok('PUT', '', { interactionEvent: 'SignIn' });
    const wrong = await client.api('POST', '/verification/password', {
      identifier: { type: 'username', value: carol.username },
      password: 'Not-It-123',
    });
    const unknown = await client.api('POST', '/verification/password', {
      identifier: { type: 'username', value: uniqueName('nobody') },
      password: PASSWORD,
    });
    expect(wrong).to.deep.equal(unknown);
    expect(wrong.status).to.equal(422);
    expect(wrong.body.code).to.equal('session.invalid_credentials');

    await h.running.request(`/api/users/${carol.id}/is-suspended`, { method: 'PATCH', json: { isSuspended: true } });
    const suspended = await client.api('POST', '/verification/password', {
      identifier: { type: 'username', value: carol.username },
      password: PASSWORD,
    });
    expect(suspended.status).to.equal(422);
    expect(suspended.body.code).to.equal('user.suspended');
  });

  it('tells an unknown email only to whoever received the code (404 user.user_not_exist at identification)', async () => {
    const email = `${uniqueName('ghost')}@example.com`;
    const client = h.client();
    await client.open(h.app);
    await client.ok('PUT', '', { interactionEvent: 'SignIn' });
    const verificationId = await client.verifyEmail(h.mailbox, email, 'SignIn');
    const identified = await client.api('POST', '/identification', { verificationId });
    expect(identified.status).to.equal(404);
    expect(identified.body.code).to.equal('user.user_not_exist');
  });

  it('refuses a sign-in method the settings turned off (422 user.sign_in_method_not_enabled)', async () => {
    const dave = await user({ primaryEmail: `${uniqueName('dave')}@example.com` });
    await h.signInExperience({
      signIn: {
        methods: [
          { identifier: 'username', password: true, verificationCode: false, isPasswordPrimary: true },
          { identifier: 'email', password: false, verificationCode: true, isPasswordPrimary: false },
        ],
      },
    });
    try {
      const client = h.client();
      await client.open(h.app);
      await client.ok('PUT', '', { interactionEvent: 'SignIn' });
      const { verificationId } = await client.ok('POST', '/verification/password', {
        identifier: { type: 'email', value: dave.primaryEmail },
        password: PASSWORD,
      });
      const identified = await client.api('POST', '/identification', { verificationId });
      expect(identified.status).to.equal(422);
      expect(identified.body.code).to.equal('user.sign_in_method_not_enabled');
      expect((await client.api('POST', '/submit')).body.code).to.equal('session.identifier_not_found');
    } finally {
      await h.signInExperience({
        signIn: { methods: HARNESS_METHODS },
      });
    }
  });

  it('with no sign-in method (signIn.methods: []), refuses password and code sign-in alike (422 user.sign_in_method_not_enabled)', async () => {
    const erin = await user({ primaryEmail: `${uniqueName('erin')}@example.com` });
    await h.signInExperience({
      signIn: { methods: [] },
      signUp: { identifiers: [], password: false, verify: false },
    });
    try {
      const byPassword = h.client();
      await byPassword.open(h.app);
      await byPassword.ok('PUT', '', { interactionEvent: 'SignIn' });
      for (const identifier of [
        { type: 'username', value: erin.username },
        { type: 'email', value: erin.primaryEmail },
      ]) {
        const { verificationId } = await byPassword.ok('POST', '/verification/password', {
          identifier,
          password: PASSWORD,
        });
        const identified = await byPassword.api('POST', '/identification', { verificationId });
        expect(identified.status, identifier.type).to.equal(422);
        expect(identified.body.code).to.equal('user.sign_in_method_not_enabled');
      }
      expect((await byPassword.api('POST', '/submit')).body.code).to.equal('session.identifier_not_found');

      const byCode = h.client();
      await byCode.open(h.app);
      await byCode.ok('PUT', '', { interactionEvent: 'SignIn' });
      const verificationId = await byCode.verifyEmail(h.mailbox, erin.primaryEmail, 'SignIn');
      const identified = await byCode.api('POST', '/identification', { verificationId });
      expect(identified.status).to.equal(422);
      expect(identified.body.code).to.equal('user.sign_in_method_not_enabled');
    } finally {
      await h.signInExperience({
        signIn: { methods: HARNESS_METHODS },
        signUp: { identifiers: ['username'], password: true, verify: false },
      });
    }
  });
});

describe('Experience API: completing the profile while signing in', () => {
  let h: ExperienceHarness;

  before(async () => {
    h = await startExperienceHarness();
    await h.signInExperience({ signUp: { identifiers: ['email'], password: true, verify: true } });
  });
  after(() => h.close());

  it('asks an account without an email for one (422 user.missing_profile), then PostSignIn and User.Data.Updated', async () => {
    const erin = await json(
      h.running.request('/api/users', { method: 'POST', json: { username: uniqueName('erin'), password: PASSWORD } }),
    );
    const email = `${uniqueName('erin')}@example.com`;
    const client = h.client();
    await client.open(h.app);
    await client.ok('PUT', '', { interactionEvent: 'SignIn' });
    const { verificationId } = await client.ok('POST', '/verification/password', {
      identifier: { type: 'username', value: erin.username },
      password: PASSWORD,
    });
    await client.ok('POST', '/identification', { verificationId });
    const incomplete = await client.api('POST', '/submit');
    expect(incomplete.status).to.equal(422);
    expect(incomplete.body).to.deep.include({ code: 'user.missing_profile', data: { missingProfile: ['email'] } });
    const replacing = await client.api('POST', '/profile', { type: 'username', value: uniqueName('other') });
    expect(replacing.status).to.equal(422);
    expect(replacing.body.code).to.equal('user.username_exists_in_profile');

    const emailId = await client.verifyEmail(h.mailbox, email, 'SignIn');
    await client.ok('POST', '/profile', { type: 'email', verificationId: emailId });
    const tokens = await client.submitForTokens();
    expect(tokens.claims()!.sub).to.equal(erin.id);

    const updated = await h.delivery('User.Data.Updated', (payload) => payload.data.id === erin.id);
    expect(updated).to.include({
      interactionEvent: 'SignIn',
      applicationId: h.app.id,
      userAgent: 'experience-tests/1.0',
    });
    expect(updated.data.primaryEmail).to.equal(email);
    expect(updated).not.to.have.any.keys('path', 'method', 'matchedRoute');
    const signedIn = await h.delivery('PostSignIn', (payload) => payload.userId === erin.id);
    expect(signedIn.user.primaryEmail).to.equal(email);
  });
});
