import { expect } from 'chai';
import { startService, type RunningService } from '../support/service.ts';
import { createApplication, createResource, createUser, tokenRequest } from '../support/fixtures.ts';
import { startMailbox, type Mailbox } from '../support/mailbox.ts';
import { capturingLogger, type LogLine } from '../support/logs.ts';
import { eventually } from '../support/wait.ts';
import { accountClient } from '../support/account.ts';
import { newId } from '../../lib/ids.ts';
import { ACCESS_TOKEN_TYPE as AT, TOKEN_EXCHANGE_GRANT as GRANT } from '../../lib/impersonation/grant.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const INDICATOR = 'https://notice.example.com';
const PASSWORD = 'support agent passphrase 9';
/** Messages one address may be sent per window: small, to reach the limit. */
const PER_RECIPIENT = 2;
const NOT_DELIVERED = 'a message sent in the background was not delivered';

/** The optional email to the impersonated user at each exchange, through the real SMTP connector. */
for (const backend of ['embedded', 'redis'] as const) {
  describe(`impersonation notice by email (${backend})`, () => {
    let running: RunningService;
    let mailbox: Mailbox;
    let lines: LogLine[];
    let app: { id: string; secret?: string };
    let appName: string;
    let actorToken: string;
    const rejected = `rejected-${newId(6).toLowerCase()}@example.com`;

    before(async () => {
      mailbox = await startMailbox({ rejects: (address) => address === rejected });
      const captured = capturingLogger();
      lines = captured.lines;
      running = await startService({
        logger: captured.logger,
        env: {
          REDIS_URL: backend === 'redis' ? REDIS_URL : undefined,
          SMTP_URL: mailbox.url,
          MESSAGE_RATE_LIMIT_COUNT: String(PER_RECIPIENT),
        },
      });
      await createResource(running, INDICATOR, ['read']);
      appName = `Support Desk ${newId(4)}`;
      app = await createApplication(running, {
        type: 'Traditional',
        name: appName,
        customClientMetadata: { allowTokenExchange: true },
      });
      const actor = await createUser(running, [], { name: 'Sam <Support>' }, PASSWORD);
      actorToken = await (await accountClient(running)).signIn(actor.username!, PASSWORD, 'openid');
    });
    after(async () => {
      await running.close();
      await mailbox.close();
    });

    const notify = (on: boolean) =>
      running.request('/api/sign-in-exp', { method: 'PATCH', json: { impersonation: { notifyByEmail: on } } });
    const userWithEmail = (address = `user-${newId(8).toLowerCase()}@example.com`) =>
      createUser(running, [], { primaryEmail: address });
    const exchange = async (userId: string, extra: Record<string, string> = {}, reason?: string) => {
      const created = await running.request('/api/subject-tokens', {
        method: 'POST',
        json: { userId, context: { note: 'private to the customizer' }, ...(reason && { reason }) },
      });
      const token = ((await created.json()) as { subjectToken: string }).subjectToken;
      const result = await tokenRequest(
        running,
        { grant_type: GRANT, subject_token_type: AT, subject_token: token, resource: INDICATOR, ...extra },
        app,
      );
      expect(result.status, JSON.stringify(result.body)).to.equal(200);
      return result;
    };
    const notDelivered = (code?: string) =>
      lines.filter(
        (line) =>
          line.msg === NOT_DELIVERED &&
          line.purpose === 'UserImpersonated' &&
          (code === undefined || line.code === code),
      );

    afterEach(async () => {
      expect((await notify(false)).status).to.equal(200);
    });

    it('is off by default; once on, mails the user after each exchange: when, which application, who and why, never the context', async () => {
      const user = await userWithEmail();
      await exchange(user.id, {}, 'before the setting');
      expect(
        ((await (await running.request('/api/sign-in-exp')).json()) as { impersonation: unknown }).impersonation,
      ).to.deep.equal({ requireReason: false, notifyByEmail: false });

      expect((await notify(true)).status).to.equal(200);
      await exchange(user.id, { actor_token: actorToken, actor_token_type: AT }, 'Ticket <SUP-3> & refund');
      const mail = await mailbox.waitFor(user.primaryEmail!);
      // Messages to one address go out one after another: had the first exchange sent one, it would have come first.
      expect(mailbox.messages(user.primaryEmail!)).to.have.length(1);
      expect(mail.subject).to.equal(`Your ${appName} account was accessed on your behalf`);
      expect(mail.text).to.contain(`${appName} was given access to your account on your behalf by Sam <Support>`);
      expect(mail.text).to.contain('The reason given: Ticket <SUP-3> & refund.');
      expect(mail.text).to.match(/On \d{4}-\d\d-\d\d \d\d:\d\d UTC, /);
      expect(mail.html).to.contain('by Sam &lt;Support&gt;').and.contain('Ticket &lt;SUP-3&gt; &amp; refund');
      for (const part of [mail.text, mail.html, mail.subject]) expect(part).not.to.contain('private to the customizer');

      // Without actor or reason, the message says neither.
      await exchange(user.id);
      const plain = await mailbox.waitFor(user.primaryEmail!);
      expect(plain.text).not.to.contain(' by ').and.not.to.contain('reason');
    });

    it('a send that fails does not fail the exchange: the impersonation stands and the failure is logged', async () => {
      expect((await notify(true)).status).to.equal(200);
      const user = await userWithEmail(rejected);
      const result = await exchange(user.id);
      const listed = (await (await running.request(`/api/impersonations?userId=${user.id}`)).json()) as Array<{
        status: string;
      }>;
      expect(listed.map((record) => record.status)).to.deep.equal(['active']);
      expect(result.body.access_token).to.be.a('string');
      await eventually(() => notDelivered().some((line) => line.channel === 'email'));
    });

    it('spends the per-recipient send limit: past it, the exchange is still answered and no message goes out', async () => {
      expect((await notify(true)).status).to.equal(200);
      const user = await userWithEmail();
      for (let sent = 1; sent <= PER_RECIPIENT; sent += 1) {
        await exchange(user.id);
        await mailbox.waitFor(user.primaryEmail!);
      }
      const before = notDelivered('request.message_rate_limited').length;
      await exchange(user.id);
      await eventually(() => notDelivered('request.message_rate_limited').length > before);
      expect(mailbox.messages(user.primaryEmail!)).to.have.length(PER_RECIPIENT);
    });
  });
}
