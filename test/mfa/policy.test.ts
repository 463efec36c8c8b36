import { expect } from 'chai';
import {
  json,
  startExperienceHarness,
  uniqueName,
  type ExperienceHarness,
  type ExperienceClient,
} from '../support/experience.ts';
import { DEFAULT_MFA, enrolTotp, identifiedByPassword, mfaPolicy, passwordUser } from '../support/mfa.ts';

/** Every MFA setting the sign-in experience accepts acts on sign-in; every other value is refused. */
describe('MFA policy in the sign-in experience', () => {
  let h: ExperienceHarness;

  before(async () => {
    h = await startExperienceHarness();
  });
  afterEach(() => mfaPolicy(h, DEFAULT_MFA));
  after(() => h.close());

  const patch = (mfa: unknown) => h.running.request('/api/sign-in-exp', { method: 'PATCH', json: { mfa } });

  async function registering(): Promise<ExperienceClient> {
    const client = h.client();
    await client.open(h.app);
    await client.ok('PUT', '', { interactionEvent: 'Register' });
    await client.ok('POST', '/profile', { type: 'username', value: uniqueName('new') });
    await client.ok('POST', '/profile', { type: 'password', value: 'Register-Pass-77' });
    expect((await client.api('POST', '/identification', {})).status).to.equal(201);
    return client;
  }

  it("stores Logto's shape, organizationRequiredMfaPolicy defaulting to NoPrompt", async () => {
    expect((await json(h.running.request('/api/sign-in-exp'))).mfa).to.deep.equal(DEFAULT_MFA);
    const res = await patch({ factors: ['Totp', 'BackupCode'], policy: 'PromptOnlyAtSignIn' });
    expect(res.status).to.equal(200);
    expect((await json(res)).mfa).to.deep.equal({
      factors: ['Totp', 'BackupCode'],
      policy: 'PromptOnlyAtSignIn',
      organizationRequiredMfaPolicy: 'NoPrompt',
    });
  });

  it('refuses values it does not act on with 400, and inconsistent ones with their codes', async () => {
    const refused: Array<[unknown, string]> = [
      [{ factors: ['Totp'], policy: 'PromptAtSignInAndSignUpMandatory' }, 'guard.invalid_input'],
      [{ factors: ['Totp'], policy: 'PromptOnlyAtSignInMandatory' }, 'guard.invalid_input'],
      [{ factors: ['EmailVerificationCode'], policy: 'NoPrompt' }, 'guard.invalid_input'],
      [{ factors: ['PhoneVerificationCode'], policy: 'NoPrompt' }, 'guard.invalid_input'],
      [{ factors: ['Totp'], policy: 'NoPrompt', organizationRequiredMfaPolicy: 'Sometimes' }, 'guard.invalid_input'],
      [{ factors: ['Totp'], policy: 'NoPrompt', adaptive: true }, 'guard.invalid_input'],
      [{ factors: ['Totp'] }, 'guard.invalid_input'],
      [{ factors: ['Totp', 'Totp'], policy: 'NoPrompt' }, 'sign_in_experiences.duplicated_mfa_factors'],
      [{ factors: ['BackupCode'], policy: 'NoPrompt' }, 'sign_in_experiences.backup_code_cannot_be_enabled_alone'],
      [{ factors: [], policy: 'Mandatory' }, 'sign_in_experiences.mandatory_mfa_requires_factors'],
      [
        { factors: [], policy: 'NoPrompt', organizationRequiredMfaPolicy: 'Mandatory' },
        'sign_in_experiences.mandatory_mfa_requires_factors',
      ],
    ];
    for (const [mfa, code] of refused) {
      const res = await patch(mfa);
      expect(res.status, JSON.stringify(mfa)).to.equal(400);
      expect((await json(res)).code, JSON.stringify(mfa)).to.equal(code);
    }
    expect((await json(h.running.request('/api/sign-in-exp'))).mfa, 'nothing was stored').to.deep.equal(DEFAULT_MFA);
  });

  it('NoPrompt: a user without a factor signs in without being asked to enrol', async () => {
    await mfaPolicy(h, { factors: ['Totp'], policy: 'NoPrompt' });
    const user = await passwordUser(h);
    const client = await identifiedByPassword(h, user.username);
    expect((await client.submitForTokens()).claims()!.sub).to.equal(user.id);
  });

  for (const policy of ['PromptAtSignInAndSignUp', 'UserControlled']) {
    it(`${policy}: asks at sign-in and at sign-up, the user may skip, and a skip is remembered`, async () => {
      await mfaPolicy(h, { factors: ['Totp'], policy });
      const user = await passwordUser(h);
      const client = await identifiedByPassword(h, user.username);
      const asked = await client.api('POST', '/submit');
      expect(asked.status).to.equal(422);
      expect(asked.body).to.deep.include({
        code: 'user.missing_mfa',
        data: { availableFactors: ['Totp'], skippable: true },
      });
      expect((await client.api('POST', '/profile/mfa/mfa-skipped')).status).to.equal(204);
      await client.submitForTokens();
      const again = await identifiedByPassword(h, user.username);
      expect((await again.submitForTokens()).claims()!.sub, 'not asked again').to.equal(user.id);

      const newcomer = await registering();
      const atSignUp = await newcomer.api('POST', '/submit');
      expect(atSignUp.status).to.equal(422);
      expect(atSignUp.body.code).to.equal('user.missing_mfa');
    });
  }

  it('PromptOnlyAtSignIn: sign-up is not asked, the next sign-in is', async () => {
    await mfaPolicy(h, { factors: ['Totp'], policy: 'PromptOnlyAtSignIn' });
    const newcomer = await registering();
    await newcomer.submitForTokens();
    const user = await passwordUser(h);
    const client = await identifiedByPassword(h, user.username);
    expect((await client.api('POST', '/submit')).body.code).to.equal('user.missing_mfa');
  });

  it('Mandatory: a user who skipped under an optional policy must now enrol, without a way to skip', async () => {
    await mfaPolicy(h, { factors: ['Totp'], policy: 'PromptAtSignInAndSignUp' });
    const user = await passwordUser(h);
    const first = await identifiedByPassword(h, user.username);
    await first.ok('POST', '/profile/mfa/mfa-skipped');
    await first.submitForTokens();
    await mfaPolicy(h, { factors: ['Totp'], policy: 'Mandatory' });
    const client = await identifiedByPassword(h, user.username);
    const forced = await client.api('POST', '/submit');
    expect(forced.status).to.equal(422);
    expect(forced.body).to.deep.include({ code: 'user.missing_mfa', data: { availableFactors: ['Totp'] } });
  });

  it('no factors offered: a user holding a factor is still asked for it (removing a factor type never drops a second factor)', async () => {
    const user = await passwordUser(h);
    await enrolTotp(h, user.id);
    const client = await identifiedByPassword(h, user.username);
    expect((await client.api('POST', '/submit')).status).to.equal(403);
  });

  it('organizationRequiredMfaPolicy Mandatory: members of an organization with isMfaRequired must enrol, others are not asked', async () => {
    await mfaPolicy(h, { factors: ['Totp'], policy: 'NoPrompt', organizationRequiredMfaPolicy: 'Mandatory' });
    const organization = await json(
      h.running.request('/api/organizations', {
        method: 'POST',
        json: { name: uniqueName('Secure'), isMfaRequired: true },
      }),
    );
    const member = await passwordUser(h);
    const outsider = await passwordUser(h);
    await h.running.request(`/api/organizations/${organization.id}/users`, {
      method: 'POST',
      json: { userIds: [member.id] },
    });
    const asked = await identifiedByPassword(h, member.username);
    const refused = await asked.api('POST', '/submit');
    expect(refused.status).to.equal(422);
    expect(refused.body).to.deep.include({ code: 'user.missing_mfa', data: { availableFactors: ['Totp'] } });
    expect((await asked.api('POST', '/profile/mfa/mfa-skipped')).body.code).to.equal(
      'session.mfa.mfa_policy_not_user_controlled',
    );
    const free = await identifiedByPassword(h, outsider.username);
    expect((await free.submitForTokens()).claims()!.sub).to.equal(outsider.id);

    await mfaPolicy(h, { factors: ['Totp'], policy: 'NoPrompt', organizationRequiredMfaPolicy: 'NoPrompt' });
    const notAsked = await identifiedByPassword(h, member.username);
    expect((await notAsked.submitForTokens()).claims()!.sub, 'NoPrompt leaves it to organization tokens').to.equal(
      member.id,
    );
  });
});
