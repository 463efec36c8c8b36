import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { codeFrom } from '../support/mailbox.ts';
import { eventually } from '../support/wait.ts';
import { verifyDelivery } from '../support/webhooks/hooks.ts';
import { Receiver } from '../support/webhooks/receiver.ts';
import { json, startExperienceHarness, uniqueName, type ExperienceHarness } from '../support/experience.ts';

describe('Experience API: registration', () => {
  let h: ExperienceHarness;

  before(async () => {
    h = await startExperienceHarness();
  });
  after(() => h.close());

  it('registers with a username and a password: 201, tokens at the client, User.Created then PostRegister', async () => {
    const username = uniqueName('reg');
    const client = h.client();
    await client.open(h.app);
    await client.ok('PUT', '', { interactionEvent: 'Register' });
    await client.ok('POST', '/profile', { type: 'username', value: username });
    await client.ok('POST', '/profile', { type: 'password', value: 'Correct-Horse-7' });
    const identified = await client.api('POST', '/identification', {});
    expect(identified.status).to.equal(201);

    const tokens = await client.submitForTokens();
    const userId = tokens.claims()!.sub;
    const user = (await json(h.running.request(`/api/users/${userId}`))) as Record<string, unknown>;
    expect(user).to.include({ username, hasPassword: true });
    expect(user.lastSignInAt).to.be.a('number');

    const created = await h.delivery('User.Created', (payload) => payload.data.id === userId);
    expect(created).to.include({
      interactionEvent: 'Register',
      applicationId: h.app.id,
      userAgent: 'experience-tests/1.0',
    });
    expect(created.sessionId).to.be.a('string');
    expect(created.ip).to.be.a('string');
    const registered = await h.delivery('PostRegister', (payload) => payload.userId === userId);
    expect(registered).to.include({
      interactionEvent: 'Register',
      sessionId: created.sessionId,
      userAgent: 'experience-tests/1.0',
    });
    expect(registered.application).to.deep.include({ id: h.app.id, type: 'Traditional' });
    expect(registered.user).to.include({ id: userId, username });
    expect(JSON.stringify(registered)).not.to.match(/passwordDigest|Correct-Horse-7|scrypt/);

    const signIn = await h.running.request(`/api/users/${userId}/password/verify`, {
      method: 'POST',
      json: { password: 'Correct-Horse-7' },
    });
    expect(signIn.status, 'the password was stored').to.equal(204);
  });
});

describe('Experience API: registration rules', () => {
  let h: ExperienceHarness;

  before(async () => {
    h = await startExperienceHarness();
  });
  after(() => h.close());

  it('asks for what sign-up requires (422 user.missing_profile) and applies the password policy (422 password.rejected)', async () => {
    const client = h.client();
    await client.open(h.app);
    await client.ok('PUT', '', { interactionEvent: 'Register' });
    const empty = await client.api('POST', '/identification', {});
    expect(empty.status).to.equal(422);
    expect(empty.body).to.deep.include({
      code: 'user.missing_profile',
      data: { missingProfile: ['username', 'password'] },
    });
    await client.ok('POST', '/profile', { type: 'username', value: uniqueName('rules') });
    const weak = await client.api('POST', '/profile', { type: 'password', value: 'password' });
    expect(weak.status).to.equal(422);
    expect(weak.body.code).to.equal('password.rejected');
    const stillMissing = await client.api('POST', '/identification', {});
    expect(stillMissing.body.data).to.deep.equal({ missingProfile: ['password'] });
    const badUsername = await client.api('POST', '/profile', { type: 'username', value: '1 not a username' });
    expect(badUsername.status).to.equal(400);
    expect(badUsername.body.code).to.equal('guard.invalid_input');
  });

  it("takes Logto's sign-up without identifiers (registration through connectors only) and never creates an empty account", async () => {
    const before = await json(h.running.request('/api/sign-in-exp'));
    await h.signInExperience({ signUp: { identifiers: [], password: false, verify: false } });
    try {
      const client = h.client();
      await client.open(h.app);
      await client.ok('PUT', '', { interactionEvent: 'Register' });
      const empty = await client.api('POST', '/identification', {});
      expect(empty.status).to.equal(422);
      expect(empty.body).to.deep.include({
        code: 'user.missing_profile',
        data: { missingProfile: ['username', 'email', 'phone'] },
      });
      expect((await client.api('POST', '/submit')).status, 'nothing to submit').to.be.within(400, 499);
    } finally {
      await h.signInExperience({ signUp: before.signUp });
    }
  });

  it('refuses a username another account holds (409 user.username_already_in_use) and registration when it is off (403 auth.forbidden)', async () => {
    const username = uniqueName('taken');
    await h.running.request('/api/users', { method: 'POST', json: { username } });
    const client = h.client();
    await client.open(h.app);
    await client.ok('PUT', '', { interactionEvent: 'Register' });
    const taken = await client.api('POST', '/profile', { type: 'username', value: username });
    expect(taken.status).to.equal(409);
    expect(taken.body.code).to.equal('user.username_already_in_use');

    await h.signInExperience({ signInMode: 'SignIn' });
    try {
      const off = await client.api('PUT', '', { interactionEvent: 'Register' });
      expect(off.status).to.equal(403);
      expect(off.body.code).to.equal('auth.forbidden');
      const switched = await client.api('PUT', '/interaction-event', { interactionEvent: 'Register' });
      expect(switched.status).to.equal(403);
    } finally {
      await h.signInExperience({ signInMode: 'SignInAndRegister' });
    }
  });
});

describe('Experience API: registration with an email and a code, and just-in-time organizations', () => {
  let h: ExperienceHarness;

  before(async () => {
    h = await startExperienceHarness();
    await h.signInExperience({ signUp: { identifiers: ['email'], password: false, verify: true } });
  });
  after(() => h.close());

  async function jitOrganization(domain: string) {
    const organization = await json(
      h.running.request('/api/organizations', { method: 'POST', json: { name: uniqueName('org') } }),
    );
    const role = await json(
      h.running.request('/api/organization-roles', { method: 'POST', json: { name: uniqueName('member') } }),
    );
    await h.running.request(`/api/organizations/${organization.id}/jit/email-domains`, {
      method: 'POST',
      json: { emailDomain: domain },
    });
    await h.running.request(`/api/organizations/${organization.id}/jit/roles`, {
      method: 'POST',
      json: { organizationRoleIds: [role.id] },
    });
    return { organization, role };
  }

  it('registers with a code read from a real mailbox, joins the JIT organization with its default roles, and gets tokens', async () => {
    const { organization, role } = await jitOrganization('jit.example.com');
    const email = `${uniqueName('new')}@JIT.example.com`;
    const client = h.client();
    await client.open(h.app);
    await client.ok('PUT', '', { interactionEvent: 'Register' });
    const verificationId = await client.verifyEmail(h.mailbox, email, 'Register');
    const identified = await client.api('POST', '/identification', { verificationId });
    expect(identified.status, JSON.stringify(identified.body)).to.equal(201);
    const tokens = await client.submitForTokens();
    const userId = tokens.claims()!.sub;
    const user = await json(h.running.request(`/api/users/${userId}`));
    expect(user).to.include({ primaryEmail: email.toLowerCase(), hasPassword: false });

    const membership = await h.delivery(
      'Organization.Membership.Updated',
      (payload) => payload.organizationId === organization.id,
    );
    expect(membership).to.deep.include({
      addedUserIds: [userId],
      interactionEvent: 'Register',
      applicationId: h.app.id,
    });
    expect(membership.data).to.include({ id: organization.id, name: organization.name });
    const roles = await json(h.running.request(`/api/organizations/${organization.id}/users/${userId}/roles`));
    expect(roles.map((item: { id: string }) => item.id)).to.deep.equal([role.id]);
    await h.delivery(
      'User.Created',
      (payload) => payload.data.id === userId && payload.data.primaryEmail === email.toLowerCase(),
    );
    await h.delivery('PostRegister', (payload) => payload.userId === userId);
  });

  it('refuses a verified email that another account holds (409 user.email_already_in_use) and creates nothing', async () => {
    const email = `${uniqueName('held')}@example.com`;
    await h.running.request('/api/users', { method: 'POST', json: { primaryEmail: email } });
    const client = h.client();
    await client.open(h.app);
    await client.ok('PUT', '', { interactionEvent: 'Register' });
    const verificationId = await client.verifyEmail(h.mailbox, email, 'Register');
    const identified = await client.api('POST', '/identification', { verificationId });
    expect(identified.status).to.equal(409);
    expect(identified.body.code).to.equal('user.email_already_in_use');
    const users = await json(h.running.request(`/api/users?search=${encodeURIComponent(email)}`));
    expect(users).to.have.length(1);
  });

  it('provisions an account on its first sign-in only when this sign-in verified its email', async () => {
    const { organization } = await jitOrganization('other.example.com');
    const create = async (local: string) =>
      json(
        h.running.request('/api/users', {
          method: 'POST',
          json: { primaryEmail: `${uniqueName(local)}@other.example.com`, password: 'Stored-Pass-42' },
        }),
      );
    const byPassword = await create('pw');
    const byCode = await create('code');

    const first = h.client();
    await first.open(h.app);
    await first.ok('PUT', '', { interactionEvent: 'SignIn' });
    const { verificationId: passwordId } = await first.ok('POST', '/verification/password', {
      identifier: { type: 'email', value: byPassword.primaryEmail },
      password: 'Stored-Pass-42',
    });
    await first.ok('POST', '/identification', { verificationId: passwordId });
    await first.submitForTokens();
    await h.delivery('PostSignIn', (payload) => payload.userId === byPassword.id);

    const second = h.client();
    await second.open(h.app);
    await second.ok('PUT', '', { interactionEvent: 'SignIn' });
    const codeId = await second.verifyEmail(h.mailbox, byCode.primaryEmail, 'SignIn');
    await second.ok('POST', '/identification', { verificationId: codeId });
    await second.submitForTokens();
    const joined = await h.delivery(
      'Organization.Membership.Updated',
      (payload) => payload.organizationId === organization.id,
    );
    expect(joined).to.deep.include({ addedUserIds: [byCode.id], interactionEvent: 'SignIn' });

    const members = await json(h.running.request(`/api/organizations/${organization.id}/users`));
    expect(members.map((member: { id: string }) => member.id)).to.deep.equal([byCode.id]);
  });
});

describe('Experience API: registration and sign-in with a phone number', () => {
  let h: ExperienceHarness;
  let sms: Receiver;
  const smsKey = `whsec_${randomBytes(32).toString('base64')}`;

  before(async () => {
    sms = await Receiver.start();
    h = await startExperienceHarness({ SMS_WEBHOOK_URL: sms.url('/sms'), SMS_WEBHOOK_SIGNING_KEY: smsKey });
    await h.signInExperience({
      signIn: {
        methods: [
          { identifier: 'username', password: true, verificationCode: false, isPasswordPrimary: true },
          { identifier: 'phone', password: false, verificationCode: true, isPasswordPrimary: false },
        ],
      },
      signUp: { identifiers: ['phone'], password: false, verify: true },
    });
  });
  after(async () => {
    await h.close();
    await sms.close();
  });

  const textsTo = (phone: string) =>
    sms
      .requests('/sms')
      .map((request) => verifyDelivery(request, smsKey))
      .filter((text) => text.to === phone);
  /** The code of the text message to `phone` after the first `earlier`, verified as the operator's SMS endpoint would. */
  const codeSentTo = (phone: string, earlier: number) =>
    eventually(
      () => {
        const text = textsTo(phone)[earlier];
        return text ? codeFrom(text as { text: string }) : undefined;
      },
      { what: `a text to ${phone}` },
    );

  async function verifiedPhone(
    client: ReturnType<ExperienceHarness['client']>,
    phone: string,
    interactionEvent: string,
  ) {
    const identifier = { type: 'phone', value: phone };
    const earlier = textsTo(phone).length;
    const verificationId = await client.sendCode({ type: 'phone', value: phone }, interactionEvent);
    await client.ok('POST', '/verification/verification-code/verify', {
      identifier,
      verificationId,
      code: await codeSentTo(phone, earlier),
    });
    return verificationId;
  }

  it('registers with a texted code, then signs in with another', async () => {
    const phone = `1555${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`;
    const registering = h.client();
    await registering.open(h.app);
    await registering.ok('PUT', '', { interactionEvent: 'Register' });
    const registered = await registering.api('POST', '/identification', {
      verificationId: await verifiedPhone(registering, phone, 'Register'),
    });
    expect(registered.status).to.equal(201);
    const userId = (await registering.submitForTokens()).claims()!.sub;
    expect(await json(h.running.request(`/api/users/${userId}`))).to.include({ primaryPhone: phone });

    const signingIn = h.client();
    await signingIn.open(h.app);
    await signingIn.ok('PUT', '', { interactionEvent: 'SignIn' });
    await signingIn.ok('POST', '/identification', { verificationId: await verifiedPhone(signingIn, phone, 'SignIn') });
    expect((await signingIn.submitForTokens()).claims()!.sub).to.equal(userId);
    await h.delivery('PostSignIn', (payload) => payload.userId === userId && payload.user.primaryPhone === phone);
  });
});
