import { expect } from 'chai';
import { json, startExperienceHarness, uniqueName, type ExperienceHarness } from '../support/experience.ts';

const PASSWORD = 'Correct-Horse-7';
const METHODS = [
  { identifier: 'username', password: true, verificationCode: false, isPasswordPrimary: true },
  { identifier: 'email', password: true, verificationCode: true, isPasswordPrimary: true },
];

describe('Experience API: secondary sign-up identifiers (signUp.secondaryIdentifiers)', () => {
  let h: ExperienceHarness;

  before(async () => {
    h = await startExperienceHarness();
  });
  after(() => h.close());

  async function registering() {
    const client = h.client();
    await client.open(h.app);
    await client.ok('PUT', '', { interactionEvent: 'Register' });
    return client;
  }

  it('without them, a username and a password register an account (201)', async () => {
    await h.signInExperience({
      signIn: { methods: METHODS },
      signUp: { identifiers: ['username'], password: true, verify: false },
    });
    const client = await registering();
    await client.ok('POST', '/profile', { type: 'username', value: uniqueName('plain') });
    await client.ok('POST', '/profile', { type: 'password', value: PASSWORD });
    expect((await client.api('POST', '/identification', {})).status).to.equal(201);
  });

  it('with a verified email required beside the username: 422 user.missing_profile naming it until a code proves one, then 201', async () => {
    await h.signInExperience({
      signIn: { methods: METHODS },
      signUp: {
        identifiers: ['username'],
        password: true,
        verify: true,
        secondaryIdentifiers: [{ identifier: 'email', verify: true }],
      },
    });
    const stored = (await json(h.running.request('/api/sign-in-exp'))).signUp;
    expect(stored).to.deep.equal({
      identifiers: ['username'],
      password: true,
      verify: true,
      secondaryIdentifiers: [{ identifier: 'email', verify: true }],
    });

    const username = uniqueName('second');
    const email = `${username}@example.com`;
    const client = await registering();
    const empty = await client.api('POST', '/identification', {});
    expect(empty.status).to.equal(422);
    expect(empty.body).to.deep.include({
      code: 'user.missing_profile',
      data: { missingProfile: ['username', 'email', 'password'] },
    });
    await client.ok('POST', '/profile', { type: 'username', value: username });
    await client.ok('POST', '/profile', { type: 'password', value: PASSWORD });
    const noEmail = await client.api('POST', '/identification', {});
    expect(noEmail.status).to.equal(422);
    expect(noEmail.body).to.deep.include({ code: 'user.missing_profile', data: { missingProfile: ['email'] } });
    expect(await h.running.request(`/api/users?search=${username}`).then(json), 'no account yet').to.deep.equal([]);

    // An unverified code verification does not count.
    const { verificationId: unproven } = await client.ok('POST', '/verification/verification-code', {
      identifier: { type: 'email', value: `other-${email}` },
      interactionEvent: 'Register',
    });
    const refused = await client.api('POST', '/profile', { type: 'email', verificationId: unproven });
    expect(refused.status).to.equal(400);
    expect(refused.body.code).to.equal('session.verification_failed');

    const verificationId = await client.verifyEmail(h.mailbox, email, 'Register');
    await client.ok('POST', '/profile', { type: 'email', verificationId });
    expect((await client.api('POST', '/identification', {})).status).to.equal(201);
    const userId = (await client.submitForTokens()).claims()!.sub;
    expect(await json(h.running.request(`/api/users/${userId}`))).to.include({
      username,
      primaryEmail: email,
      hasPassword: true,
    });
  });

  it('asks an account signing in without the required secondary identifier for it at submit (422 user.missing_profile)', async () => {
    await h.signInExperience({
      signIn: { methods: METHODS },
      signUp: {
        identifiers: ['username'],
        password: true,
        verify: true,
        secondaryIdentifiers: [{ identifier: 'emailOrPhone', verify: true }],
      },
    });
    const user = await json(
      h.running.request('/api/users', { method: 'POST', json: { username: uniqueName('old'), password: PASSWORD } }),
    );
    const client = h.client();
    await client.open(h.app);
    await client.ok('PUT', '', { interactionEvent: 'SignIn' });
    const { verificationId } = await client.ok('POST', '/verification/password', {
      identifier: { type: 'username', value: user.username },
      password: PASSWORD,
    });
    await client.ok('POST', '/identification', { verificationId });
    const incomplete = await client.api('POST', '/submit');
    expect(incomplete.status).to.equal(422);
    expect(incomplete.body).to.deep.include({
      code: 'user.missing_profile',
      data: { missingProfile: ['emailOrPhone'] },
    });
    const emailId = await client.verifyEmail(h.mailbox, `${user.username}@example.com`, 'SignIn');
    await client.ok('POST', '/profile', { type: 'email', verificationId: emailId });
    expect((await client.submitForTokens()).claims()!.sub).to.equal(user.id);
  });

  it('with a username required beside a verified email: registration by a code asks for the username too', async () => {
    await h.signInExperience({
      signIn: { methods: METHODS },
      signUp: {
        identifiers: ['email'],
        password: false,
        verify: true,
        secondaryIdentifiers: [{ identifier: 'username' }],
      },
    });
    const email = `${uniqueName('mail')}@example.com`;
    const client = await registering();
    const verificationId = await client.verifyEmail(h.mailbox, email, 'Register');
    const missing = await client.api('POST', '/identification', { verificationId });
    expect(missing.status).to.equal(422);
    expect(missing.body).to.deep.include({ code: 'user.missing_profile', data: { missingProfile: ['username'] } });
    const username = uniqueName('named');
    await client.ok('POST', '/profile', { type: 'username', value: username });
    expect((await client.api('POST', '/identification', {})).status).to.equal(201);
    const userId = (await client.submitForTokens()).claims()!.sub;
    expect(await json(h.running.request(`/api/users/${userId}`))).to.include({
      username,
      primaryEmail: email,
      hasPassword: false,
    });
  });
});
