import { expect } from 'chai';
import { startService, type RunningService } from '../support/service.ts';
import { createUser } from '../support/fixtures.ts';
import { accountClient, asUser, passwordRecord, type AccountClient } from '../support/account.ts';
import { totpCode } from '../support/mfa.ts';

const PASSWORD = 'correct horse battery';

/** The Account API's MFA routes: the user's own factors, behind the account center and the identity gate. */
describe('Account API: a user managing their second factors', () => {
  let running: RunningService;
  let apps: AccountClient;

  before(async () => {
    running = await startService();
    apps = await accountClient(running);
    const offered = await running.request('/api/sign-in-exp', {
      method: 'PATCH',
      json: { mfa: { factors: ['Totp', 'BackupCode'], policy: 'NoPrompt' } },
    });
    expect(offered.status).to.equal(200);
  });
  after(() => running.close());

  async function signedIn() {
    const user = await createUser(running, [], {}, PASSWORD);
    const me = asUser(running, await apps.signIn(user.username!, PASSWORD));
    return { user, me };
  }

  it('adds an authenticator app (confirmed with a code from it) and backup codes, lists them without secrets, removes one', async () => {
    const { user, me } = await signedIn();
    expect((await me('/api/my-account/mfa-verifications')).body).to.deep.equal([]);
    const generated = await me('/api/my-account/mfa-verifications/totp-secret/generate', { method: 'POST' });
    expect(generated.status).to.equal(200);
    const { secret, secretQrCode, keyUri } = generated.body as { secret: string; secretQrCode: string; keyUri: string };
    expect(secretQrCode).to.match(/^data:image\/png;base64,/);
    expect(new URL(keyUri).searchParams.get('secret')).to.equal(secret);
    expect(await running.request(`/api/users/${user.id}/mfa-verifications`).then((res) => res.json())).to.deep.equal(
      [],
    );

    const ungated = await me('/api/my-account/mfa-verifications', {
      method: 'POST',
      json: { type: 'Totp', secret, code: totpCode(secret) },
    });
    expect(ungated.status).to.equal(401);
    expect(ungated.body!.code).to.equal('verification_record.permission_denied');
    const verification = await passwordRecord(me, PASSWORD);
    const wrong = await me('/api/my-account/mfa-verifications', {
      method: 'POST',
      verification,
      json: { type: 'Totp', secret, code: totpCode(secret, 8) },
    });
    expect(wrong.status).to.equal(400);
    expect(wrong.body!.code).to.equal('session.mfa.invalid_totp_code');
    const added = await me('/api/my-account/mfa-verifications', {
      method: 'POST',
      verification,
      json: { type: 'Totp', secret, code: totpCode(secret) },
    });
    expect(added.status).to.equal(204);
    const twice = await me('/api/my-account/mfa-verifications', {
      method: 'POST',
      verification,
      json: { type: 'Totp', secret, code: totpCode(secret) },
    });
    expect(twice.body!.code).to.equal('user.totp_already_in_use');

    const { codes } = (await me('/api/my-account/mfa-verifications/backup-codes/generate', { method: 'POST' }))
      .body as { codes: string[] };
    expect(codes).to.have.length(10);
    const badSet = await me('/api/my-account/mfa-verifications', {
      method: 'POST',
      verification,
      json: { type: 'BackupCode', codes: codes.slice(1) },
    });
    expect(badSet.status).to.equal(422);
    expect(badSet.body!.code).to.equal('user.wrong_backup_code_format');
    expect(
      (
        await me('/api/my-account/mfa-verifications', {
          method: 'POST',
          verification,
          json: { type: 'BackupCode', codes },
        })
      ).status,
    ).to.equal(204);

    const listed = (await me('/api/my-account/mfa-verifications')).body as unknown as Array<{
      id: string;
      type: string;
      remainCodes?: number;
    }>;
    expect(listed.map((factor) => factor.type)).to.deep.equal(['Totp', 'BackupCode']);
    expect(listed[1]!.remainCodes).to.equal(10);
    expect(JSON.stringify(listed)).not.to.include(secret);
    expect(
      await running.service.core.mfa.consumeBackupCode(user.id, codes[0]!),
      'the stored codes are the ones shown',
    ).to.equal(true);

    const removed = await me(`/api/my-account/mfa-verifications/${listed[0]!.id}`, { method: 'DELETE', verification });
    expect(removed.status).to.equal(204);
    expect((await me('/api/my-account/mfa-verifications')).body as unknown as unknown[]).to.have.length(1);
  });

  it('follows the account center: Off refuses reading, ReadOnly allows reading but no change', async () => {
    const { me } = await signedIn();
    const center = (await (await running.request('/api/account-center')).json()) as { fields: Record<string, string> };
    try {
      await running.request('/api/account-center', {
        method: 'PATCH',
        json: { fields: { ...center.fields, mfa: 'Off' } },
      });
      const off = await me('/api/my-account/mfa-verifications');
      expect(off.status).to.equal(403);
      expect(off.body!.code).to.equal('account_center.field_not_enabled');
      await running.request('/api/account-center', {
        method: 'PATCH',
        json: { fields: { ...center.fields, mfa: 'ReadOnly' } },
      });
      expect((await me('/api/my-account/mfa-verifications')).status).to.equal(200);
      const readOnly = await me('/api/my-account/mfa-verifications/totp-secret/generate', { method: 'POST' });
      expect(readOnly.status).to.equal(403);
      expect(readOnly.body!.code).to.equal('account_center.field_not_editable');
    } finally {
      await running.request('/api/account-center', { method: 'PATCH', json: { fields: center.fields } });
    }
  });

  it('needs the identities scope, and refuses a factor the sign-in experience does not offer', async () => {
    const user = await createUser(running, [], {}, PASSWORD);
    const narrow = asUser(running, await apps.signIn(user.username!, PASSWORD, 'openid profile'));
    expect((await narrow('/api/my-account/mfa-verifications')).status).to.equal(403);
    const { me } = await signedIn();
    await running.request('/api/sign-in-exp', { method: 'PATCH', json: { mfa: { factors: [], policy: 'NoPrompt' } } });
    try {
      const refused = await me('/api/my-account/mfa-verifications/totp-secret/generate', { method: 'POST' });
      expect(refused.status).to.equal(400);
      expect(refused.body!.code).to.equal('session.mfa.mfa_factor_not_enabled');
    } finally {
      await running.request('/api/sign-in-exp', {
        method: 'PATCH',
        json: { mfa: { factors: ['Totp', 'BackupCode'], policy: 'NoPrompt' } },
      });
    }
  });
});
