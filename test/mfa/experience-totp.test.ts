import { expect } from 'chai';
import { json, startExperienceHarness, type ExperienceHarness } from '../support/experience.ts';
import { installFakeClock, type FakeClock } from '../support/clock.ts';
import { DEFAULT_MFA, enrolTotp, identifiedByPassword, mfaPolicy, passwordUser, totpCode } from '../support/mfa.ts';

describe('MFA at sign-in: authenticator app (TOTP)', () => {
  let h: ExperienceHarness;
  let clock: FakeClock | undefined;

  before(async () => {
    h = await startExperienceHarness();
  });
  afterEach(async () => {
    clock?.uninstall();
    clock = undefined;
    await mfaPolicy(h, DEFAULT_MFA);
  });
  after(() => h.close());

  it('mandatory policy: enrols an app with a QR code and a code computed from the secret, then asks for it at the next sign-in', async () => {
    await mfaPolicy(h, { factors: ['Totp'], policy: 'Mandatory' });
    const alice = await passwordUser(h);
    const first = await identifiedByPassword(h, alice.username);

    const missing = await first.api('POST', '/submit');
    expect(missing.status).to.equal(422);
    expect(missing.body).to.include({ code: 'user.missing_mfa' });
    expect(missing.body.data).to.deep.equal({ availableFactors: ['Totp'] });
    const skip = await first.api('POST', '/profile/mfa/mfa-skipped');
    expect(skip.status).to.equal(422);
    expect(skip.body.code).to.equal('session.mfa.mfa_policy_not_user_controlled');

    const { verificationId, secret, secretQrCode, keyUri } = await first.ok('POST', '/verification/totp/secret');
    expect(secret).to.match(/^[A-Z2-7]{32}$/);
    expect(secretQrCode).to.match(/^data:image\/png;base64,[A-Za-z0-9+/=]+$/);
    const uri = new URL(keyUri);
    expect(uri.protocol).to.equal('otpauth:');
    expect(uri.searchParams.get('secret')).to.equal(secret);
    expect(decodeURIComponent(uri.pathname)).to.include(alice.username);

    const wrong = await first.api('POST', '/verification/totp/verify', { verificationId, code: totpCode(secret, 5) });
    expect(wrong.status).to.equal(400);
    expect(wrong.body.code).to.equal('session.mfa.invalid_totp_code');
    const unconfirmedBind = await first.api('POST', '/profile/mfa', { type: 'Totp', verificationId });
    expect(unconfirmedBind.status).to.equal(400);
    expect(unconfirmedBind.body.code).to.equal('session.verification_failed');
    const enrolCode = totpCode(secret);
    await first.ok('POST', '/verification/totp/verify', { verificationId, code: enrolCode });
    expect((await first.api('POST', '/profile/mfa', { type: 'Totp', verificationId })).status).to.equal(204);
    const tokens = await first.submitForTokens();
    expect(tokens.claims()!.sub).to.equal(alice.id);

    const listed = await json(h.running.request(`/api/users/${alice.id}/mfa-verifications`));
    expect(listed).to.have.length(1);
    expect(listed[0]).to.include({ type: 'Totp' });
    expect(JSON.stringify(listed)).not.to.include(secret);
    const updated = await h.delivery('User.Data.Updated', (payload) => payload.data?.id === alice.id);
    expect(updated.interactionEvent).to.equal('SignIn');
    expect(JSON.stringify(h.deliveries())).not.to.include(secret);
    const stored = await h.running.service.core.store.collection('mfa_verifications').findOne({ userId: alice.id });
    expect(JSON.stringify(stored), 'the secret is encrypted at rest').not.to.include(secret);

    clock = installFakeClock();
    const second = await identifiedByPassword(h, alice.username);
    const unverified = await second.api('POST', '/submit');
    expect(unverified.status).to.equal(403);
    expect(unverified.body).to.deep.include({
      code: 'session.mfa.require_mfa_verification',
      data: { availableFactors: ['Totp'] },
    });
    const replayedEnrolment = await second.api('POST', '/verification/totp/verify', { code: enrolCode });
    expect(replayedEnrolment.status, 'the code that confirmed the app is spent').to.equal(400);
    clock.advance(30_000);
    const signInCode = totpCode(secret);
    await second.ok('POST', '/verification/totp/verify', { code: signInCode });
    expect((await second.submitForTokens()).claims()!.sub).to.equal(alice.id);

    const third = await identifiedByPassword(h, alice.username);
    const replayed = await third.api('POST', '/verification/totp/verify', { code: signInCode });
    expect(replayed.status, 'a code is accepted once per time step').to.equal(400);
    expect(replayed.body.code).to.equal('session.mfa.invalid_totp_code');
    expect((await third.api('POST', '/submit')).status).to.equal(403);
  });

  it('asks a user with an app for its code even when the policy prompts nobody, and refuses an older code after a newer one', async () => {
    const bob = await passwordUser(h);
    const secret = await enrolTotp(h, bob.id);
    clock = installFakeClock();
    const client = await identifiedByPassword(h, bob.username);
    expect((await client.api('POST', '/submit')).status).to.equal(403);
    await client.ok('POST', '/verification/totp/verify', { code: totpCode(secret, 1) });
    const older = await client.api('POST', '/verification/totp/verify', { code: totpCode(secret) });
    expect(older.status, 'a step before an accepted one').to.equal(400);
    expect((await client.submitForTokens()).claims()!.sub).to.equal(bob.id);
  });

  it('counts wrong codes toward the lockout: the threshold locks the second factor, then even the right code is refused', async () => {
    const carol = await passwordUser(h);
    const secret = await enrolTotp(h, carol.id);
    const client = await identifiedByPassword(h, carol.username);
    const threshold = h.running.service.settings.LOCKOUT_THRESHOLD;
    const answers = [];
    for (let attempt = 0; attempt < threshold; attempt += 1) {
      answers.push((await client.api('POST', '/verification/totp/verify', { code: totpCode(secret, 10) })).status);
    }
    expect(answers.slice(0, -1).every((status) => status === 400)).to.equal(true);
    expect(answers.at(-1), 'the failure that reaches the threshold').to.equal(429);
    const right = await client.api('POST', '/verification/totp/verify', { code: totpCode(secret) });
    expect(right.status).to.equal(429);
    expect(right.body.code).to.equal('session.verification_blocked_too_many_attempts');
    await h.delivery('Identifier.Lockout', (payload) => payload.value === carol.username);
    const again = await identifiedByPassword(h, carol.username);
    expect(
      (await again.api('POST', '/verification/totp/verify', { code: totpCode(secret) })).status,
      'a new sign-in is still locked',
    ).to.equal(429);
  });

  it('a correct password does not start the count of wrong codes over (no fresh guesses for whoever knows the password)', async () => {
    const dana = await passwordUser(h);
    const secret = await enrolTotp(h, dana.id);
    const threshold = h.running.service.settings.LOCKOUT_THRESHOLD;
    for (let attempt = 0; attempt < threshold - 1; attempt += 1) {
      const client = await identifiedByPassword(h, dana.username);
      expect((await client.api('POST', '/verification/backup-code/verify', { code: 'not-a-code' })).status).to.equal(
        400,
      );
    }
    const last = await identifiedByPassword(h, dana.username);
    const locked = await last.api('POST', '/verification/totp/verify', { code: totpCode(secret, 10) });
    expect(locked.status, 'the threshold counts across sign-ins and both kinds of code').to.equal(429);
  });

  it('answers bad inputs with 4xx and stable codes', async () => {
    const dave = await passwordUser(h);
    const anonymous = h.client();
    await anonymous.open(h.app);
    await anonymous.ok('PUT', '', { interactionEvent: 'SignIn' });
    const notIdentified = await anonymous.api('POST', '/verification/totp/verify', { code: '123456' });
    expect(notIdentified.status).to.equal(404);
    expect(notIdentified.body.code).to.equal('session.identifier_not_found');

    const client = await identifiedByPassword(h, dave.username);
    const disabled = await client.api('POST', '/verification/totp/secret');
    expect(disabled.status, 'TOTP is not among the factors users may enrol').to.equal(400);
    expect(disabled.body.code).to.equal('session.mfa.mfa_factor_not_enabled');
    for (const body of [{}, { code: 123456 }, { code: '' }, { code: 'x'.repeat(65) }, { code: '123456', extra: 1 }]) {
      const answer = await client.api('POST', '/verification/totp/verify', body);
      expect(answer.status, JSON.stringify(body)).to.equal(400);
      expect(answer.body.code).to.equal('guard.invalid_input');
    }
    const noApp = await client.api('POST', '/verification/totp/verify', { code: '000000' });
    expect(noApp.status).to.equal(400);
    expect(noApp.body.code).to.equal('session.mfa.invalid_totp_code');
    const unknown = await client.api('POST', '/verification/totp/verify', { code: '000000', verificationId: 'nope' });
    expect(unknown.status).to.equal(404);
    expect(unknown.body.code).to.equal('session.verification_session_not_found');
    const bind = await client.api('POST', '/profile/mfa', { type: 'WebAuthn', verificationId: 'x' });
    expect(bind.status).to.equal(404);
    expect(bind.body.code).to.equal('session.verification_session_not_found');
  });
});
