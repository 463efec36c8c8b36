import { expect } from 'chai';
import { json, startExperienceHarness, type ExperienceHarness } from '../support/experience.ts';
import { DEFAULT_MFA, enrolTotp, identifiedByPassword, mfaPolicy, passwordUser, totpCode } from '../support/mfa.ts';

describe('MFA at sign-in: backup codes', () => {
  let h: ExperienceHarness;

  before(async () => {
    // A budget above the 100 concurrent attempts below, so that the lockout does not decide their outcome.
    h = await startExperienceHarness({ LOCKOUT_THRESHOLD: '1000' });
  });
  afterEach(() => mfaPolicy(h, DEFAULT_MFA));
  after(() => h.close());

  async function codesFor(userId: string): Promise<string[]> {
    const res = await h.running.request(`/api/users/${userId}/mfa-verifications`, {
      method: 'POST',
      json: { type: 'BackupCode' },
    });
    expect(res.status, await res.clone().text()).to.equal(201);
    return (await json(res)).codes;
  }

  it('enrolment with backup codes required: ten codes shown once, then one of them signs in exactly once', async () => {
    await mfaPolicy(h, { factors: ['Totp', 'BackupCode'], policy: 'Mandatory' });
    const alice = await passwordUser(h);
    const first = await identifiedByPassword(h, alice.username);
    const early = await first.api('POST', '/verification/backup-code/generate');
    const { verificationId: earlyId } = early.body;
    const alone = await first.api('POST', '/profile/mfa', { type: 'BackupCode', verificationId: earlyId });
    expect(alone.status).to.equal(422);
    expect(alone.body.code).to.equal('session.mfa.backup_code_can_not_be_alone');

    const { verificationId, secret } = await first.ok('POST', '/verification/totp/secret');
    await first.ok('POST', '/verification/totp/verify', { verificationId, code: totpCode(secret) });
    await first.ok('POST', '/profile/mfa', { type: 'Totp', verificationId });
    const required = await first.api('POST', '/submit');
    expect(required.status).to.equal(422);
    expect(required.body.code).to.equal('session.mfa.backup_code_required');
    const generated = await first.ok('POST', '/verification/backup-code/generate');
    expect(generated.codes).to.have.length(10);
    expect(new Set(generated.codes).size).to.equal(10);
    await first.ok('POST', '/profile/mfa', { type: 'BackupCode', verificationId: generated.verificationId });
    await first.submitForTokens();

    const listed = await json(h.running.request(`/api/users/${alice.id}/mfa-verifications`));
    expect(listed.map((item: { type: string }) => item.type).sort()).to.deep.equal(['BackupCode', 'Totp']);
    expect(listed.find((item: { type: string }) => item.type === 'BackupCode').remainCodes).to.equal(10);
    const stored = await h.running.service.core.store.collection('mfa_verifications').find({ userId: alice.id });
    expect(JSON.stringify(stored), 'codes are kept hashed').not.to.include(generated.codes[0]);

    const [code] = generated.codes;
    const second = await identifiedByPassword(h, alice.username);
    expect((await second.api('POST', '/submit')).body.data).to.deep.equal({ availableFactors: ['Totp', 'BackupCode'] });
    await second.ok('POST', '/verification/backup-code/verify', { code: code.toUpperCase() });
    expect((await second.submitForTokens()).claims()!.sub).to.equal(alice.id);

    const third = await identifiedByPassword(h, alice.username);
    const reused = await third.api('POST', '/verification/backup-code/verify', { code });
    expect(reused.status).to.equal(400);
    expect(reused.body.code).to.equal('session.mfa.invalid_backup_code');
    const after = await json(h.running.request(`/api/users/${alice.id}/mfa-verifications`));
    expect(after.find((item: { type: string }) => item.type === 'BackupCode').remainCodes).to.equal(9);
  });

  it('100 concurrent uses of one backup code: exactly one succeeds', async () => {
    const bob = await passwordUser(h);
    await enrolTotp(h, bob.id);
    const [code] = await codesFor(bob.id);
    const client = await identifiedByPassword(h, bob.username);
    const answers = await Promise.all(
      Array.from({ length: 100 }, () => client.api('POST', '/verification/backup-code/verify', { code })),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 200)).to.have.length(1);
    expect(statuses.filter((status) => status === 400)).to.have.length(99);
    expect(
      answers
        .filter((answer) => answer.status === 400)
        .every((answer) => answer.body.code === 'session.mfa.invalid_backup_code'),
    ).to.equal(true);
  });

  it('100 concurrent spends of one code in the library: exactly one is true', async () => {
    const carol = await passwordUser(h);
    await enrolTotp(h, carol.id);
    const [code] = await codesFor(carol.id);
    const { mfa } = h.running.service.core;
    const results = await Promise.all(Array.from({ length: 100 }, () => mfa.consumeBackupCode(carol.id, code!)));
    expect(results.filter(Boolean)).to.have.length(1);
  });

  it('management: a second set while unused codes remain is refused, and codes never stand alone', async () => {
    const dave = await passwordUser(h);
    const alone = await h.running.request(`/api/users/${dave.id}/mfa-verifications`, {
      method: 'POST',
      json: { type: 'BackupCode' },
    });
    expect(alone.status).to.equal(422);
    expect((await json(alone)).code).to.equal('session.mfa.backup_code_can_not_be_alone');
    await enrolTotp(h, dave.id);
    await codesFor(dave.id);
    const again = await h.running.request(`/api/users/${dave.id}/mfa-verifications`, {
      method: 'POST',
      json: { type: 'BackupCode' },
    });
    expect(again.status).to.equal(422);
    expect((await json(again)).code).to.equal('user.backup_code_already_in_use');
  });
});
