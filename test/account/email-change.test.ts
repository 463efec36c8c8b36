import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { startService, type RunningService } from '../support/service.ts';
import { createUser } from '../support/fixtures.ts';
import { codeFrom, startMailbox, type Mailbox } from '../support/mailbox.ts';
import { Receiver, eventually } from '../support/webhooks/receiver.ts';
import { FAST_ENV, createHook, getJson, verifyDelivery, type CreatedHook } from '../support/webhooks/hooks.ts';
import { accountClient, asUser, emailRecord, passwordRecord, type AccountClient } from '../support/account.ts';

const PASSWORD = 'correct horse battery';
const address = (label: string) => `${label}-${randomBytes(4).toString('hex')}@example.com`;

describe('Account API: changing the primary email with a code from the real SMTP server', () => {
  let mailbox: Mailbox;
  let receiver: Receiver;
  let running: RunningService;
  let hook: CreatedHook;
  let apps: AccountClient;

  before(async () => {
    mailbox = await startMailbox();
    receiver = await Receiver.start();
    running = await startService({ env: { ...FAST_ENV, SMTP_URL: mailbox.url } });
    hook = await createHook(running, {
      events: ['User.Data.Updated', 'Message.RateLimited'],
      config: { url: receiver.url('/hook') },
    });
    apps = await accountClient(running);
  });
  after(async () => {
    await running?.close();
    await receiver?.close();
    await mailbox?.close();
  });

  /** Payloads delivered to the hook (verified as a consumer verifies them) matching `match`. */
  const delivered = (match: (payload: Record<string, any>) => boolean) =>
    receiver
      .requests('/hook')
      .map((request) => verifyDelivery(request, hook.signingKey))
      .filter(match);

  /** The hook's deliveries of `event` whose payload matches: queued before the response that caused them. */
  async function queuedFor(event: string, match: (payload: Record<string, any>) => boolean): Promise<string[]> {
    const deliveries = await getJson<Array<{ id: string; event: string }>>(
      running,
      `/api/hooks/${hook.id}/deliveries?page_size=100`,
    );
    const mine: string[] = [];
    for (const delivery of deliveries.filter((d) => d.event === event)) {
      const detail = await getJson<{ payload: Record<string, any> }>(
        running,
        `/api/hooks/${hook.id}/deliveries/${delivery.id}`,
      );
      if (match(detail.payload)) mine.push(delivery.id);
    }
    return mine;
  }

  async function member() {
    const username = `member_${randomBytes(4).toString('hex')}`;
    const old = address('old');
    const user = await createUser(running, [], { username, primaryEmail: old }, PASSWORD);
    const me = asUser(running, await apps.signIn(username, PASSWORD));
    return { user, me, old };
  }

  it('proves the password, proves the new address with the emailed code, switches, and delivers User.Data.Updated', async () => {
    const { user, me, old } = await member();
    expect((await me('/api/my-account')).body).to.include({ primaryEmail: old });

    const identity = await me('/api/verifications/password', { method: 'POST', json: { password: PASSWORD } });
    expect(identity.status).to.equal(201);
    expect(identity.body!.verificationRecordId).to.be.a('string');
    const expiresAt = Date.parse(String(identity.body!.expiresAt));
    expect(expiresAt - Date.now()).to.be.within(9 * 60_000, 10 * 60_000);

    const fresh = address('new');
    const sent = await me('/api/verifications/verification-code', {
      method: 'POST',
      json: { identifier: { type: 'email', value: fresh } },
    });
    expect(sent.status).to.equal(201);
    const mail = await mailbox.waitFor(fresh, { timeoutMs: 15_000 });
    expect(mail.subject).to.include(apps.app.name);
    const code = codeFrom(mail);
    const verified = await me('/api/verifications/verification-code/verify', {
      method: 'POST',
      json: { identifier: { type: 'email', value: fresh }, verificationId: sent.body!.verificationRecordId, code },
    });
    expect(verified.status).to.equal(200);
    expect(verified.body).to.deep.equal({ verificationRecordId: sent.body!.verificationRecordId });

    const changed = await me('/api/my-account/primary-email', {
      method: 'POST',
      verification: identity.body!.verificationRecordId as string,
      json: { email: fresh.toUpperCase(), newIdentifierVerificationRecordId: sent.body!.verificationRecordId },
    });
    expect(changed.status, JSON.stringify(changed.body)).to.equal(204);
    expect((await me('/api/my-account')).body).to.include({ primaryEmail: fresh });
    expect(await getJson(running, `/api/users/${user.id}`)).to.include({ primaryEmail: fresh });

    const [event] = await eventually(
      () => {
        const found = delivered((payload) => payload.event === 'User.Data.Updated' && payload.data?.id === user.id);
        return found.length ? found : undefined;
      },
      { what: 'User.Data.Updated for the email change' },
    );
    expect(event).to.include({
      path: '/my-account/primary-email',
      method: 'POST',
      status: 204,
      matchedRoute: '/my-account/primary-email',
    });
    expect(event!.data).to.include({ primaryEmail: fresh });
    expect(JSON.stringify(event)).not.to.include(code);
    expect(JSON.stringify(event)).not.to.include('passwordDigest');
  });

  it('refuses the 11th code to one address within the window with 429 and delivers Message.RateLimited once', async () => {
    const { me } = await member();
    const target = address('limited');
    const send = () =>
      me('/api/verifications/verification-code', {
        method: 'POST',
        json: { identifier: { type: 'email', value: target } },
      });
    for (let sent = 1; sent <= 10; sent += 1) expect((await send()).status, `code ${sent}`).to.equal(201);
    for (let refused = 1; refused <= 2; refused += 1) {
      const answer = await send();
      expect(answer.status).to.equal(429);
      expect(answer.body).to.include({ code: 'request.message_rate_limited' });
    }
    expect(mailbox.messages(target)).to.have.length(10);
    const limited = await eventually(
      () => {
        const found = delivered((payload) => payload.event === 'Message.RateLimited' && payload.recipient === target);
        return found.length ? found : undefined;
      },
      { what: 'Message.RateLimited delivery' },
    );
    expect(limited[0]).to.include({ action: 'Generic', recipient: target });
    // Enqueued before the refusing response: the hook's deliveries show exactly one for the whole window.
    expect(await queuedFor('Message.RateLimited', (payload) => payload.recipient === target)).to.have.length(1);
  });

  it('refuses a change without a fresh identity verification (401 verification_record.permission_denied)', async () => {
    const { me, user, old } = await member();
    const other = await member();
    const fresh = address('ungated');
    const proof = await emailRecord(me, mailbox, fresh);
    const body = { email: fresh, newIdentifierVerificationRecordId: proof };
    const unverified = await me('/api/verifications/verification-code', {
      method: 'POST',
      json: { identifier: { type: 'email', value: old } },
    });
    await mailbox.waitFor(old, { timeoutMs: 15_000 });
    const foreign = await passwordRecord(other.me, PASSWORD);
    for (const [why, verification] of [
      ['no header', undefined],
      ['an unknown record', 'no-such-record'],
      ['an overlong header', 'x'.repeat(4000)],
      ['a code record not verified yet', unverified.body!.verificationRecordId as string],
      ['a record proving the new address, not the user', proof],
      ["another user's password record", foreign],
    ] as const) {
      const answer = await me('/api/my-account/primary-email', { method: 'POST', json: body, verification });
      expect(answer.status, why).to.equal(401);
      expect(answer.body!.code, why).to.equal('verification_record.permission_denied');
    }
    expect(await getJson(running, `/api/users/${user.id}`)).to.include({ primaryEmail: old });
  });

  it('accepts a verified code sent to the current primary email as proof of identity', async () => {
    const { me, old } = await member();
    const identity = await emailRecord(me, mailbox, old);
    const fresh = address('by-code');
    const proof = await emailRecord(me, mailbox, fresh);
    const answer = await me('/api/my-account/primary-email', {
      method: 'POST',
      verification: identity,
      json: { email: fresh, newIdentifierVerificationRecordId: proof },
    });
    expect(answer.status, JSON.stringify(answer.body)).to.equal(204);
  });

  it('spends a new-address record once: a replay is 400 verification_record.not_found, and of 100 concurrent uses one wins', async () => {
    const { me, user } = await member();
    const identity = await passwordRecord(me, PASSWORD);
    const fresh = address('once');
    const proof = await emailRecord(me, mailbox, fresh);
    const attempts = await Promise.all(
      Array.from({ length: 100 }, () =>
        me('/api/my-account/primary-email', {
          method: 'POST',
          verification: identity,
          json: { email: fresh, newIdentifierVerificationRecordId: proof },
        }),
      ),
    );
    expect(attempts.filter((answer) => answer.status === 204)).to.have.length(1);
    for (const answer of attempts.filter((a) => a.status !== 204)) {
      expect(answer.status).to.equal(400);
      expect(answer.body!.code).to.equal('verification_record.not_found');
    }
    expect(await queuedFor('User.Data.Updated', (payload) => payload.data?.id === user.id)).to.have.length(1);
  });

  it('refuses an address someone else has (409) and leaves the record usable for the user', async () => {
    const { me } = await member();
    const taken = await member();
    const identity = await passwordRecord(me, PASSWORD);
    const proof = await emailRecord(me, mailbox, taken.old);
    const answer = await me('/api/my-account/primary-email', {
      method: 'POST',
      verification: identity,
      json: { email: taken.old, newIdentifierVerificationRecordId: proof },
    });
    expect(answer.status).to.equal(409);
    expect(answer.body!.code).to.equal('user.email_already_in_use');
    const freed = await running.request(`/api/users/${taken.user.id}`, {
      method: 'PATCH',
      json: { primaryEmail: null },
    });
    expect(freed.status).to.equal(200);
    const retried = await me('/api/my-account/primary-email', {
      method: 'POST',
      verification: identity,
      json: { email: taken.old, newIdentifierVerificationRecordId: proof },
    });
    expect(retried.status, JSON.stringify(retried.body)).to.equal(204);
  });
});
