import { expect } from 'chai';
import { withFakeClock } from '../support/clock.ts';
import { codeFrom } from '../support/mailbox.ts';
import {
  json,
  type ExperienceClient,
  startExperienceHarness,
  uniqueName,
  type ExperienceHarness,
} from '../support/experience.ts';

/** Every bad input answers 4xx with a stable code, never 500. */
describe('Experience API: refusals', () => {
  let h: ExperienceHarness;

  before(async () => {
    h = await startExperienceHarness({ VERIFICATION_CODE_TTL_SECONDS: '60' });
  });
  after(() => h.close());

  async function started(interactionEvent = 'SignIn'): Promise<ExperienceClient> {
    const client = h.client();
    await client.open(h.app);
    await client.ok('PUT', '', { interactionEvent });
    return client;
  }

  const email = () => `${uniqueName('err')}@example.com`;

  it('400 session.not_found without the interaction cookie, with a forged one, or for a finished interaction', async () => {
    const bare = await fetch(`${h.running.baseUrl}/api/experience`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ interactionEvent: 'SignIn' }),
    });
    expect(bare.status).to.equal(400);
    expect((await json(bare)).code).to.equal('session.not_found');
    const forged = await fetch(`${h.running.baseUrl}/api/experience/interaction`, {
      headers: { cookie: 'identity_experience=someone-else' },
    });
    expect(forged.status).to.equal(400);
    expect((await json(forged)).code).to.equal('session.not_found');

    const user = await json(
      h.running.request('/api/users', {
        method: 'POST',
        json: { username: uniqueName('done'), password: 'Finished-Pass-5' },
      }),
    );
    const client = await started();
    const { verificationId } = await client.ok('POST', '/verification/password', {
      identifier: { type: 'username', value: user.username },
      password: 'Finished-Pass-5',
    });
    await client.ok('POST', '/identification', { verificationId });
    await client.submitForTokens();
    const after = await client.api('GET', '/interaction');
    expect(after.status).to.equal(400);
    expect(after.body.code).to.equal('session.not_found');
  });

  it('404 session.interaction_not_found before an experience is started', async () => {
    const client = h.client();
    await client.open(h.app);
    const early = await client.api('POST', '/verification/password', {
      identifier: { type: 'username', value: 'x' },
      password: 'y',
    });
    expect(early.status).to.equal(404);
    expect(early.body.code).to.equal('session.interaction_not_found');
  });

  it('404 session.verification_session_not_found for unknown, foreign and replaced verification ids', async () => {
    const client = await started();
    const unknown = await client.api('POST', '/identification', { verificationId: 'no-such-verification' });
    expect(unknown.status).to.equal(404);
    expect(unknown.body.code).to.equal('session.verification_session_not_found');

    const other = await started();
    const foreignId = await other.sendCode({ type: 'email', value: email() }, 'SignIn');
    const foreign = await client.api('POST', '/identification', { verificationId: foreignId });
    expect(foreign.body.code).to.equal('session.verification_session_not_found');

    const address = email();
    const firstId = await client.sendCode({ type: 'email', value: address }, 'SignIn');
    await client.sendCode({ type: 'email', value: address }, 'SignIn');
    const replaced = await client.api('POST', '/verification/verification-code/verify', {
      identifier: { type: 'email', value: address },
      verificationId: firstId,
      code: '000000',
    });
    expect(replaced.status).to.equal(404);
    expect(replaced.body.code).to.equal('session.verification_session_not_found');

    await client.ok('PUT', '', { interactionEvent: 'SignIn' });
    const restarted = await client.api('GET', '/interaction');
    expect(restarted.body.verificationRecords, 'a new experience starts without verifications').to.deep.equal([]);
  });

  it('400 for a wrong code, a code for another address, a reused code and an expired one', async () => {
    const client = await started('Register');
    const address = email();
    const verificationId = await client.sendCode({ type: 'email', value: address }, 'Register');
    const code = codeFrom(await h.mailbox.waitFor(address));
    const verify = (body: Record<string, unknown>) =>
      client.api('POST', '/verification/verification-code/verify', {
        identifier: { type: 'email', value: address },
        verificationId,
        code,
        ...body,
      });
    const wrong = await verify({ code: code === '000000' ? '111111' : '000000' });
    expect(wrong.status).to.equal(400);
    expect(wrong.body.code).to.equal('verification_code.code_mismatch');
    const elsewhere = await verify({ identifier: { type: 'email', value: email() } });
    expect(elsewhere.status).to.equal(400);
    expect(elsewhere.body.code).to.equal('verification_code.email_mismatch');
    expect((await verify({})).status).to.equal(200);
    const reused = await verify({});
    expect(reused.status).to.equal(400);
    expect(reused.body.code).to.equal('verification_code.not_found');

    const late = email();
    const lateId = await client.sendCode({ type: 'email', value: late }, 'Register');
    const lateCode = codeFrom(await h.mailbox.waitFor(late));
    const expired = await withFakeClock(async (clock) => {
      clock.advance(61_000);
      return client.api('POST', '/verification/verification-code/verify', {
        identifier: { type: 'email', value: late },
        verificationId: lateId,
        code: lateCode,
      });
    });
    expect(expired.status).to.equal(400);
    expect(expired.body.code).to.equal('verification_code.expired');
  });

  it('switching event mid-flow: the profile does not carry over; forgot password never mixes with the others', async () => {
    const client = await started('Register');
    await client.ok('POST', '/profile', { type: 'username', value: uniqueName('switch') });
    await client.ok('PUT', '/interaction-event', { interactionEvent: 'SignIn' });
    await client.ok('PUT', '/interaction-event', { interactionEvent: 'Register' });
    expect((await client.ok('GET', '/interaction')).profile).to.deep.equal({});
    const toForgot = await client.api('PUT', '/interaction-event', { interactionEvent: 'ForgotPassword' });
    expect(toForgot.status).to.equal(400);
    expect(toForgot.body.code).to.equal('session.not_supported_for_forgot_password');
    const reset = await client.api('PUT', '/profile/password', { password: 'Some-Pass-123' });
    expect(reset.status).to.equal(400);
    expect(reset.body.code).to.equal('session.invalid_interaction_type');

    const user = await json(
      h.running.request('/api/users', {
        method: 'POST',
        json: { username: uniqueName('sw'), password: 'Switch-Pass-77' },
      }),
    );
    await client.ok('PUT', '/interaction-event', { interactionEvent: 'SignIn' });
    const { verificationId } = await client.ok('POST', '/verification/password', {
      identifier: { type: 'username', value: user.username },
      password: 'Switch-Pass-77',
    });
    await client.ok('POST', '/identification', { verificationId });
    await client.ok('PUT', '/interaction-event', { interactionEvent: 'Register' });
    const asRegistration = await client.api('POST', '/submit');
    expect(asRegistration.status, 'an account identified for sign-in is not a registration').to.equal(404);
    expect(asRegistration.body.code).to.equal('session.identifier_not_found');
    expect(h.published().filter((event) => event.userId === user.id && event.event === 'PostRegister')).to.deep.equal(
      [],
    );
  });

  it('submit before identification: 404 session.identifier_not_found; a sign-in profile change before it too', async () => {
    const client = await started();
    const submit = await client.api('POST', '/submit');
    expect(submit.status).to.equal(404);
    expect(submit.body.code).to.equal('session.identifier_not_found');
    const profile = await client.api('POST', '/profile', { type: 'username', value: uniqueName('early') });
    expect(profile.body.code).to.equal('session.identifier_not_found');
    const identify = await client.api('POST', '/identification', {});
    expect(identify.status).to.equal(400);
    expect(identify.body.code).to.equal('guard.invalid_input');
  });

  it('400 guard.invalid_input for malformed bodies and settings this service does not act on', async () => {
    const client = await started();
    const bodies: Array<[string, string, unknown]> = [
      ['PUT', '', { interactionEvent: 'Nope' }],
      ['PUT', '', { interactionEvent: 'SignIn', captchaToken: 'x' }],
      ['POST', '/verification/password', { identifier: { type: 'userId', value: 'x' }, password: 'y' }],
      ['POST', '/verification/password', { identifier: { type: 'username', value: 'x' }, password: '' }],
      [
        'POST',
        '/verification/verification-code',
        { identifier: { type: 'email', value: 'not-an-email' }, interactionEvent: 'SignIn' },
      ],
      [
        'POST',
        '/verification/verification-code',
        { identifier: { type: 'username', value: 'x' }, interactionEvent: 'SignIn' },
      ],
      [
        'POST',
        '/verification/verification-code/verify',
        { identifier: { type: 'phone', value: '+1 555' }, verificationId: 'x', code: '1' },
      ],
      ['POST', '/profile', { type: 'social', verificationId: 'x' }],
      ['POST', '/identification', { verificationId: 'x'.repeat(500) }],
      ['PUT', '/profile/password', { password: 'x'.repeat(300) }],
    ];
    for (const [method, path, body] of bodies) {
      const answer = await client.api(method, path, body);
      expect(answer.status, `${method} ${path} ${JSON.stringify(body)}`).to.equal(400);
      expect(answer.body.code).to.equal('guard.invalid_input');
    }
    const notJson = await client.browser.request(`${h.running.baseUrl}/api/experience/submit`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{',
    });
    expect(notJson.status).to.equal(400);
  });
});
