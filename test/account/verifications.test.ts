import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { startService, type RunningService } from '../support/service.ts';
import { createUser } from '../support/fixtures.ts';
import { codeFrom, startMailbox, type Mailbox } from '../support/mailbox.ts';
import { installFakeClock, type FakeClock } from '../support/clock.ts';
import type { IdentityEvent } from '../../lib/events/bus.ts';
import { accountClient, asUser, emailRecord, passwordRecord, type AccountClient } from '../support/account.ts';

const PASSWORD = 'correct horse battery';
const address = (label: string) => `${label}-${randomBytes(4).toString('hex')}@example.com`;

describe('Account API verifications', () => {
  let mailbox: Mailbox;
  let running: RunningService;
  let apps: AccountClient;
  let clock: FakeClock | undefined;
  const events: IdentityEvent[] = [];

  before(async () => {
    mailbox = await startMailbox();
    // Embedded key-value store: the fake clock expires what it keeps.
    running = await startService({ env: { SMTP_URL: mailbox.url, REDIS_URL: undefined, LOCKOUT_THRESHOLD: '3' } });
    running.service.core.bus.subscribe(async (published) => {
      events.push(...published);
    });
    apps = await accountClient(running);
  });
  afterEach(() => {
    clock?.uninstall();
    clock = undefined;
  });
  after(async () => {
    await running?.close();
    await mailbox?.close();
  });

  async function member(fields: Record<string, unknown> = {}) {
    const username = `member_${randomBytes(4).toString('hex')}`;
    const user = await createUser(running, [], { username, primaryEmail: address('own'), ...fields }, PASSWORD);
    const token = await apps.signIn(username, PASSWORD);
    return { user, token, me: asUser(running, token) };
  }

  it('refuses records once they expire (ten minutes), at the gate and when verifying a code', async () => {
    const { me } = await member();
    const identity = await passwordRecord(me, PASSWORD);
    const target = address('late');
    const sent = await me('/api/verifications/verification-code', {
      method: 'POST',
      json: { identifier: { type: 'email', value: target } },
    });
    const code = codeFrom(await mailbox.waitFor(target, { timeoutMs: 15_000 }));
    clock = installFakeClock();
    clock.advance(10 * 60_000 + 1000);
    const gated = await me('/api/my-account/password', {
      method: 'POST',
      verification: identity,
      json: { password: 'another long passphrase' },
    });
    expect(gated.status).to.equal(401);
    expect(gated.body!.code).to.equal('verification_record.permission_denied');
    const late = await me('/api/verifications/verification-code/verify', {
      method: 'POST',
      json: { identifier: { type: 'email', value: target }, verificationId: sent.body!.verificationRecordId, code },
    });
    expect(late.status).to.equal(400);
    expect(late.body!.code).to.equal('verification_record.not_found');
  });

  it('keeps a record for the ten minutes: a minute before expiry the gate still opens', async () => {
    const { me } = await member();
    const identity = await passwordRecord(me, PASSWORD);
    clock = installFakeClock();
    clock.advance(9 * 60_000);
    const answer = await me('/api/my-account/password', {
      method: 'POST',
      verification: identity,
      json: { password: 'another long passphrase' },
    });
    expect(answer.status, JSON.stringify(answer.body)).to.equal(204);
  });

  it('refuses wrong codes and wrong passwords, counts them toward the lockout, and then refuses even the right password', async () => {
    const { me, user } = await member();
    const target = address('guess');
    const sent = await me('/api/verifications/verification-code', {
      method: 'POST',
      json: { identifier: { type: 'email', value: target } },
    });
    const code = codeFrom(await mailbox.waitFor(target, { timeoutMs: 15_000 }));
    const wrong = code === '000000' ? '111111' : '000000';
    const guess = (value: string) =>
      me('/api/verifications/verification-code/verify', {
        method: 'POST',
        json: {
          identifier: { type: 'email', value: target },
          verificationId: sent.body!.verificationRecordId,
          code: value,
        },
      });
    const first = await guess(wrong);
    expect(first.status).to.equal(400);
    expect(first.body!.code).to.equal('verification_code.code_mismatch');
    const badPassword = await me('/api/verifications/password', {
      method: 'POST',
      json: { password: 'not my password' },
    });
    expect(badPassword.status).to.equal(422);
    expect(badPassword.body!.code).to.equal('session.invalid_credentials');
    // The third failure of the account (threshold 3) locks it: Identifier.Lockout once.
    const third = await guess(wrong);
    expect(third.status).to.equal(429);
    expect(third.body!.code).to.equal('session.verification_blocked_too_many_attempts');
    expect(events.filter((event) => event.event === 'Identifier.Lockout' && event.value === target)).to.have.length(1);
    for (const attempt of [
      await guess(code),
      await me('/api/verifications/password', { method: 'POST', json: { password: PASSWORD } }),
    ]) {
      expect(attempt.status).to.equal(429);
      expect(attempt.body!.code).to.equal('session.verification_blocked_too_many_attempts');
    }
    expect((await me('/api/my-account')).body).to.include({ id: user.id });
  });

  it('binds records to their user: another user cannot verify, use or even see them', async () => {
    const owner = await member();
    const other = await member();
    const target = address('mine');
    const sent = await owner.me('/api/verifications/verification-code', {
      method: 'POST',
      json: { identifier: { type: 'email', value: target } },
    });
    const code = codeFrom(await mailbox.waitFor(target, { timeoutMs: 15_000 }));
    const stolen = await other.me('/api/verifications/verification-code/verify', {
      method: 'POST',
      json: { identifier: { type: 'email', value: target }, verificationId: sent.body!.verificationRecordId, code },
    });
    expect(stolen.status).to.equal(400);
    expect(stolen.body!.code).to.equal('verification_record.not_found');
    const verified = await owner.me('/api/verifications/verification-code/verify', {
      method: 'POST',
      json: { identifier: { type: 'email', value: target }, verificationId: sent.body!.verificationRecordId, code },
    });
    expect(verified.status).to.equal(200);
    const identity = await passwordRecord(other.me, PASSWORD);
    const used = await other.me('/api/my-account/primary-email', {
      method: 'POST',
      verification: identity,
      json: { email: target, newIdentifierVerificationRecordId: sent.body!.verificationRecordId },
    });
    expect(used.status).to.equal(400);
    expect(used.body!.code).to.equal('verification_record.not_found');
  });

  it('answers malformed or mismatched verification requests with 4xx and stable codes', async () => {
    const { me } = await member();
    const target = address('shape');
    const record = await emailRecord(me, mailbox, target);
    const cases: Array<[string, string, unknown, number, string]> = [
      ['password missing', '/api/verifications/password', {}, 400, 'guard.invalid_input'],
      ['password not a string', '/api/verifications/password', { password: 42 }, 400, 'guard.invalid_input'],
      ['extra field', '/api/verifications/password', { password: PASSWORD, userId: 'x' }, 400, 'guard.invalid_input'],
      [
        'username is no code channel',
        '/api/verifications/verification-code',
        { identifier: { type: 'username', value: 'x' } },
        400,
        'guard.invalid_input',
      ],
      [
        'not an email address',
        '/api/verifications/verification-code',
        { identifier: { type: 'email', value: 'nope' } },
        400,
        'guard.invalid_input',
      ],
      [
        'code missing',
        '/api/verifications/verification-code/verify',
        { identifier: { type: 'email', value: target }, verificationId: record },
        400,
        'guard.invalid_input',
      ],
      [
        'unknown record',
        '/api/verifications/verification-code/verify',
        { identifier: { type: 'email', value: target }, verificationId: 'nope', code: '123456' },
        400,
        'verification_record.not_found',
      ],
      [
        'another address',
        '/api/verifications/verification-code/verify',
        { identifier: { type: 'email', value: address('x') }, verificationId: record, code: '123456' },
        400,
        'verification_code.email_mismatch',
      ],
      [
        'a phone for an email record',
        '/api/verifications/verification-code/verify',
        { identifier: { type: 'phone', value: '15550100' }, verificationId: record, code: '123456' },
        400,
        'verification_record.not_found',
      ],
      [
        'a verified record again',
        '/api/verifications/verification-code/verify',
        { identifier: { type: 'email', value: target }, verificationId: record, code: '123456' },
        400,
        'verification_code.not_found',
      ],
      ['password change without a password', '/api/my-account/password', {}, 400, 'guard.invalid_input'],
      [
        'primary email without a record id',
        '/api/my-account/primary-email',
        { email: target },
        400,
        'guard.invalid_input',
      ],
    ];
    for (const [why, path, json, status, code] of cases) {
      const answer = await me(path, { method: 'POST', json });
      expect(answer.status, `${why}: ${JSON.stringify(answer.body)}`).to.equal(status);
      expect(answer.body!.code, why).to.equal(code);
    }
    for (const raw of ['{"password":', 'password=x', '[]', 'null']) {
      const res = await running.request('/api/verifications/password', {
        method: 'POST',
        token: (await member()).token,
        headers: { 'content-type': 'application/json' },
        body: raw,
      });
      expect(res.status, raw).to.equal(400);
    }
    const empty = await me('/api/my-account', { method: 'PATCH', json: {} });
    expect(empty.status).to.equal(422);
    expect(empty.body!.code).to.equal('entity.invalid_input');
  });

  it('sends no code while the account center is off', async () => {
    const { me } = await member();
    await running.request('/api/account-center', { method: 'PATCH', json: { enabled: false } });
    try {
      const target = address('off');
      const answer = await me('/api/verifications/verification-code', {
        method: 'POST',
        json: { identifier: { type: 'email', value: target } },
      });
      expect(answer.status).to.equal(403);
      expect(mailbox.messages(target)).to.have.length(0);
    } finally {
      await running.request('/api/account-center', { method: 'PATCH', json: { enabled: true } });
    }
  });
});
