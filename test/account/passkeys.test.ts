import { expect } from 'chai';
import { startExperienceHarness, type ExperienceHarness } from '../support/experience.ts';
import { DEFAULT_MFA, PASSWORD, mfaPolicy, passwordUser } from '../support/mfa.ts';
import { eventually } from '../support/wait.ts';
import { SoftPasskey } from '../support/webauthn.ts';
import { DEFAULT_ACCOUNT_CENTER } from '../../lib/account/center.ts';
import { accountClient, asUser, passwordRecord, type AccountClient } from '../support/account.ts';

describe('Account API: passkeys under /api/my-account/mfa-verifications', () => {
  let h: ExperienceHarness;
  let apps: AccountClient;

  before(async () => {
    h = await startExperienceHarness();
    apps = await accountClient(h.running);
  });
  afterEach(() => mfaPolicy(h, DEFAULT_MFA));
  after(() => h.close());

  const updatesOf = (userId: string) =>
    h.deliveries().filter((payload) => payload.event === 'User.Data.Updated' && payload.data?.id === userId);

  it('registers, lists, renames and removes a passkey behind the identity gate, announcing each change', async () => {
    const alice = await passwordUser(h);
    const me = asUser(h.running, await apps.signIn(alice.username, PASSWORD));
    await mfaPolicy(h, { factors: ['WebAuthn'], policy: 'UserControlled' });
    const passkey = new SoftPasskey(h.running.baseUrl);

    const started = await me('/api/verifications/web-authn/registration', { method: 'POST' });
    expect(started.status, JSON.stringify(started.body)).to.equal(200);
    const { verificationRecordId, registrationOptions } = started.body as {
      verificationRecordId: string;
      registrationOptions: any;
    };
    expect(registrationOptions.rp.id).to.equal('127.0.0.1');
    expect(Date.parse(String(started.body!.expiresAt))).to.be.greaterThan(Date.now());
    const attestation = passkey.register(registrationOptions);
    const verified = await me('/api/verifications/web-authn/registration/verify', {
      method: 'POST',
      json: { verificationRecordId, payload: attestation },
    });
    expect(verified.status, JSON.stringify(verified.body)).to.equal(200);
    const replayed = await me('/api/verifications/web-authn/registration/verify', {
      method: 'POST',
      json: { verificationRecordId, payload: attestation },
    });
    expect(replayed.status).to.equal(400);
    expect(replayed.body!.code).to.equal('session.mfa.pending_info_not_found');

    const add = { type: 'WebAuthn', newIdentifierVerificationRecordId: verificationRecordId, name: 'Laptop' };
    const ungated = await me('/api/my-account/mfa-verifications', { method: 'POST', json: add });
    expect(ungated.status).to.equal(401);
    expect(ungated.body!.code).to.equal('verification_record.permission_denied');
    const gate = await passwordRecord(me, PASSWORD);
    expect(
      (await me('/api/my-account/mfa-verifications', { method: 'POST', json: add, verification: gate })).status,
    ).to.equal(204);
    const spent = await me('/api/my-account/mfa-verifications', { method: 'POST', json: add, verification: gate });
    expect(spent.status, 'a registration record binds one passkey once').to.equal(400);
    expect(spent.body!.code).to.equal('verification_record.not_found');
    await eventually(() => updatesOf(alice.id).length === 1 || undefined, {
      what: 'User.Data.Updated for the enrolment',
    });
    expect(JSON.stringify(updatesOf(alice.id))).not.to.include(passkey.credentialId);

    const listed = await me('/api/my-account/mfa-verifications');
    expect(listed.status).to.equal(200);
    const [factor] = listed.body as unknown as Array<Record<string, string>>;
    expect(factor).to.include({ type: 'WebAuthn', name: 'Laptop' });
    expect(Object.keys(factor!).sort()).to.deep.equal(['agent', 'createdAt', 'id', 'name', 'type']);

    const renamed = await me(`/api/my-account/mfa-verifications/${factor!.id}/name`, {
      method: 'PATCH',
      json: { name: 'Work laptop' },
      verification: gate,
    });
    expect(renamed.status).to.equal(200);
    expect(renamed.body).to.include({ id: factor!.id, name: 'Work laptop' });
    await eventually(() => updatesOf(alice.id).length === 2 || undefined, { what: 'User.Data.Updated for the rename' });
    const unknown = await me('/api/my-account/mfa-verifications/nope/name', {
      method: 'PATCH',
      json: { name: 'x' },
      verification: gate,
    });
    expect(unknown.status).to.equal(404);

    const ungatedRemoval = await me(`/api/my-account/mfa-verifications/${factor!.id}`, { method: 'DELETE' });
    expect(ungatedRemoval.status).to.equal(401);
    expect(
      (await me(`/api/my-account/mfa-verifications/${factor!.id}`, { method: 'DELETE', verification: gate })).status,
    ).to.equal(204);
    const removal = await eventually(() => updatesOf(alice.id)[2], { what: 'User.Data.Updated for the removal' });
    expect(removal.data.id).to.equal(alice.id);
    expect((await me('/api/my-account/mfa-verifications')).body).to.deep.equal([]);
  });

  it("follows the account center's mfa field: read-only lists but registers nothing, off hides the factors", async () => {
    const dave = await passwordUser(h);
    const me = asUser(h.running, await apps.signIn(dave.username, PASSWORD));
    const center = (mfa: string) =>
      h.running.request('/api/account-center', {
        method: 'PATCH',
        json: { enabled: true, fields: { ...DEFAULT_ACCOUNT_CENTER.fields, mfa } },
      });
    try {
      expect((await center('ReadOnly')).status).to.equal(200);
      expect((await me('/api/my-account/mfa-verifications')).status).to.equal(200);
      const readOnly = await me('/api/verifications/web-authn/registration', { method: 'POST' });
      expect(readOnly.status).to.equal(403);
      expect(readOnly.body!.code).to.equal('account_center.field_not_editable');
      expect((await center('Off')).status).to.equal(200);
      const off = await me('/api/my-account/mfa-verifications');
      expect(off.status).to.equal(403);
      expect(off.body!.code).to.equal('account_center.field_not_enabled');
    } finally {
      expect((await center('Edit')).status).to.equal(200);
    }
  });

  it("refuses a passkey the sign-in experience does not offer, another user's record, and a foreign origin", async () => {
    const bob = await passwordUser(h);
    const carol = await passwordUser(h);
    const asBob = asUser(h.running, await apps.signIn(bob.username, PASSWORD));
    const asCarol = asUser(h.running, await apps.signIn(carol.username, PASSWORD));
    const passkey = new SoftPasskey(h.running.baseUrl);

    const foreign = await asBob('/api/verifications/web-authn/registration', { method: 'POST' });
    const fromElsewhere = await asBob('/api/verifications/web-authn/registration/verify', {
      method: 'POST',
      json: {
        verificationRecordId: foreign.body!.verificationRecordId,
        payload: passkey.register(foreign.body!.registrationOptions as any, 'http://evil.example'),
      },
    });
    expect(fromElsewhere.status).to.equal(400);
    expect(fromElsewhere.body!.code).to.equal('session.mfa.webauthn_verification_failed');

    const started = await asBob('/api/verifications/web-authn/registration', { method: 'POST' });
    const verificationRecordId = started.body!.verificationRecordId as string;
    const byCarol = await asCarol('/api/verifications/web-authn/registration/verify', {
      method: 'POST',
      json: { verificationRecordId, payload: passkey.register(started.body!.registrationOptions as any) },
    });
    expect(byCarol.status, "another user's challenge").to.equal(400);
    const stolen = await asCarol('/api/my-account/mfa-verifications', {
      method: 'POST',
      json: { type: 'WebAuthn', newIdentifierVerificationRecordId: verificationRecordId },
      verification: await passwordRecord(asCarol, PASSWORD),
    });
    expect(stolen.status).to.be.within(400, 499);

    const again = await asBob('/api/verifications/web-authn/registration', { method: 'POST' });
    await asBob('/api/verifications/web-authn/registration/verify', {
      method: 'POST',
      json: {
        verificationRecordId: again.body!.verificationRecordId,
        payload: passkey.register(again.body!.registrationOptions as any),
      },
    });
    const notOffered = await asBob('/api/my-account/mfa-verifications', {
      method: 'POST',
      json: { type: 'WebAuthn', newIdentifierVerificationRecordId: again.body!.verificationRecordId },
      verification: await passwordRecord(asBob, PASSWORD),
    });
    expect(notOffered.status).to.equal(400);
    expect(notOffered.body!.code).to.equal('session.mfa.mfa_factor_not_enabled');
    for (const json of [
      { type: 'Passkey' },
      { type: 'WebAuthn' },
      { type: 'WebAuthn', newIdentifierVerificationRecordId: 'x', name: '' },
    ]) {
      const bad = await asBob('/api/my-account/mfa-verifications', { method: 'POST', json, verification: 'x' });
      expect(bad.status, JSON.stringify(json)).to.equal(400);
      expect(bad.body!.code).to.equal('guard.invalid_input');
    }
  });
});
