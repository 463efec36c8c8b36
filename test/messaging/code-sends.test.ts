import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import type { IdentityEvent } from '../../lib/events/bus.ts';
import { ExperienceClient, REDIRECT, uniqueName } from '../support/experience.ts';
import { accountClient } from '../support/account.ts';
import { createApplication, createUser } from '../support/fixtures.ts';
import { capturingLogger, type LogLine } from '../support/logs.ts';
import { codeFrom, startMailbox, type Mailbox } from '../support/mailbox.ts';
import { startService, type RunningService } from '../support/service.ts';
import { eventually } from '../support/wait.ts';

const REDIS_URL = process.env.TEST_REDIS_URL ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const PASSWORD = 'Code-Sends-Pass-77';
const CONCURRENT = 100;
const PER_IP = 15;

const address = (label: string) => `${label}-${randomBytes(4).toString('hex')}@example.com`;
/** A client address of its own (the service believes X-Forwarded-For here), so that no two tests or runs share a count. */
const clientIp = () => `2001:db8::${randomBytes(2).toString('hex')}:${randomBytes(2).toString('hex')}`;

/**
 * Code sends tell nothing about whether an address has an account (the answer never waits for the message, and a
 * failure to deliver it is logged, not answered), and nobody can spread codes over many recipients: one sign-in,
 * one client address and one signed-in user each have a budget of their own beside each recipient's.
 */
for (const backend of ['embedded', 'redis'] as const) {
  describe(`Code sends: no enumeration, no pumping (${backend})`, () => {
    /** Messages to these addresses are held by the mail server until released. */
    const gates = new Map<string, { held: Promise<void>; release(): void }>();
    const gate = (to: string) => {
      let release = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      gates.set(to, { held, release });
      return release;
    };
    const rejected = new Set<string>();
    const captured = capturingLogger();
    const events: IdentityEvent[] = [];
    let mailbox: Mailbox;
    let running: RunningService;
    let app: { id: string };

    before(async () => {
      mailbox = await startMailbox({
        rejects: (to) => rejected.has(to),
        holds: (to) => gates.get(to)?.held,
      });
      running = await startService({
        logger: captured.logger,
        env: {
          SMTP_URL: mailbox.url,
          REDIS_URL: backend === 'redis' ? REDIS_URL : undefined,
          TRUST_PROXY: 'true',
          MESSAGE_RATE_LIMIT_PER_IP: String(PER_IP),
        },
      });
      expect(running.service.core.kv.kind).to.equal(backend === 'redis' ? 'redis' : 'sqlite');
      running.service.core.bus.subscribe(async (published) => {
        events.push(...published);
      });
      app = await createApplication(running, { type: 'Traditional', oidcClientMetadata: { redirectUris: [REDIRECT] } });
    });
    after(async () => {
      for (const { release } of gates.values()) release();
      await running?.close();
      await mailbox?.close();
    });

    async function started(event: 'SignIn' | 'ForgotPassword'): Promise<ExperienceClient> {
      const client = new ExperienceClient(running);
      await client.open(app);
      await client.ok('PUT', '', { interactionEvent: event });
      return client;
    }

    /** `POST /verification/verification-code` from `ip`, with the headers of its answer. */
    async function send(client: ExperienceClient, email: string, event: string, ip: string) {
      const res = await client.browser.request(`${running.baseUrl}/api/experience/verification/verification-code`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': ip },
        body: JSON.stringify({ identifier: { type: 'email', value: email }, interactionEvent: event }),
      });
      return {
        status: res.status,
        retryAfter: res.headers.get('retry-after'),
        body: (await res.json()) as Record<string, any>,
      };
    }

    const knownUser = async () =>
      createUser(running, [], { username: uniqueName('known'), primaryEmail: address('known') }, PASSWORD);

    it('answers a code to a known address before its message has gone out, as it answers an unknown one', async function () {
      // Without sending in the background, the answer would wait for the held message until this test times out.
      this.timeout(5000);
      const known = await knownUser();
      const release = gate(known.primaryEmail!);
      const ip = clientIp();
      const client = await started('ForgotPassword');
      const toKnown = await send(client, known.primaryEmail!, 'ForgotPassword', ip);
      const toStranger = await send(await started('ForgotPassword'), address('stranger'), 'ForgotPassword', ip);
      expect(toKnown.status).to.equal(200);
      expect(toStranger.status).to.equal(toKnown.status);
      expect(Object.keys(toStranger.body)).to.deep.equal(Object.keys(toKnown.body));
      expect(mailbox.messages(known.primaryEmail!), 'still held by the mail server').to.deep.equal([]);

      release();
      const code = codeFrom(await mailbox.waitFor(known.primaryEmail!));
      await client.ok('POST', '/verification/verification-code/verify', {
        identifier: { type: 'email', value: known.primaryEmail },
        verificationId: toKnown.body.verificationId,
        code,
      });
    });

    it('logs a message that could not be delivered after the answer, and answers as for an unknown address', async () => {
      const known = await knownUser();
      rejected.add(known.primaryEmail!);
      const ip = clientIp();
      const toKnown = await send(await started('ForgotPassword'), known.primaryEmail!, 'ForgotPassword', ip);
      const toStranger = await send(await started('ForgotPassword'), address('stranger'), 'ForgotPassword', ip);
      expect(toKnown.status).to.equal(200);
      expect(toStranger.status).to.equal(200);
      expect(Object.keys(toKnown.body)).to.deep.equal(Object.keys(toStranger.body));
      const line = await eventually(
        () =>
          captured.lines.find(
            (logged: LogLine) =>
              logged.msg === 'a message sent in the background was not delivered' &&
              logged.purpose === 'ForgotPassword',
          ),
        { what: 'the warning about the undelivered message' },
      );
      expect(line).to.include({ code: 'connector.general', channel: 'email' });
      expect(JSON.stringify(line), 'neither the address nor a code')
        .not.to.include(known.primaryEmail!)
        .and.not.match(/\b\d{6}\b/);
    });

    it('refuses the 11th code of one sign-in, whatever its recipients (429 with Retry-After, no Message.RateLimited)', async () => {
      const ip = clientIp();
      const client = await started('SignIn');
      const recipients = Array.from({ length: 11 }, () => address('spray'));
      const answers = [];
      for (const recipient of recipients) answers.push(await send(client, recipient, 'SignIn', ip));
      expect(answers.slice(0, 10).map((answer) => answer.status)).to.deep.equal(new Array(10).fill(200));
      const refused = answers[10]!;
      expect(refused.status).to.equal(429);
      expect(refused.body.code).to.equal('request.message_rate_limited');
      expect(Number(refused.retryAfter)).to.be.within(1, 600);
      expect(
        events.filter((event) => event.event === 'Message.RateLimited' && recipients.includes(String(event.recipient))),
      ).to.deep.equal([]);
      // Another sign-in from elsewhere still sends to the last of them.
      expect((await send(await started('SignIn'), recipients[10]!, 'SignIn', clientIp())).status).to.equal(200);
    });

    /**
     * Fires `CONCURRENT` sends at once, each to an address of its own, and expects exactly `budget` messages out. A
     * send within the budget answers 200, or 409 `session.concurrent_update` when another request changed its
     * sign-in meanwhile (the message is out all the same); every other one is refused unsent.
     */
    async function burst(budget: number, sendOne: (to: string, nth: number) => ReturnType<typeof send>): Promise<void> {
      const recipients = Array.from({ length: CONCURRENT }, () => address('burst'));
      const answers = await Promise.all(recipients.map((to, nth) => sendOne(to, nth)));
      const statuses = answers.map((answer) => answer.status);
      expect(
        statuses.filter((status) => status === 429),
        statuses.join(','),
      ).to.have.length(CONCURRENT - budget);
      expect(statuses.filter((status) => status === 200 || status === 409)).to.have.length(budget);
      expect(answers.find((answer) => answer.status === 429)!.retryAfter).to.match(/^\d+$/);
      await eventually(
        () => recipients.filter((to) => mailbox.messages(to).length > 0).length === budget || undefined,
        { what: `${budget} messages` },
      );
    }

    it(`sends exactly 10 of ${CONCURRENT} concurrent codes of one sign-in to as many addresses`, async () => {
      const client = await started('SignIn');
      await burst(10, (to) => send(client, to, 'SignIn', clientIp()));
    });

    it(`sends exactly MESSAGE_RATE_LIMIT_PER_IP (${PER_IP}) of ${CONCURRENT} concurrent codes from one address over many sign-ins`, async () => {
      const ip = clientIp();
      const clients = await Promise.all(Array.from({ length: 10 }, () => started('SignIn')));
      await burst(PER_IP, (to, nth) => send(clients[nth % 10]!, to, 'SignIn', ip));
    });

    it(`lets a signed-in user send exactly 10 of ${CONCURRENT} concurrent Account API codes to as many addresses`, async () => {
      const apps = await accountClient(running);
      const username = uniqueName('sprayer');
      await createUser(running, [], { username }, PASSWORD);
      const token = await apps.signIn(username, PASSWORD);
      const ip = clientIp();
      const answers = await Promise.all(
        Array.from({ length: CONCURRENT }, async () => {
          const res = await running.request('/api/verifications/verification-code', {
            method: 'POST',
            token,
            headers: { 'x-forwarded-for': ip },
            json: { identifier: { type: 'email', value: address('account') } },
          });
          return {
            status: res.status,
            retryAfter: res.headers.get('retry-after'),
            body: (await res.json()) as Record<string, unknown>,
          };
        }),
      );
      const statuses = answers.map((answer) => answer.status);
      expect(statuses.filter((status) => status === 201)).to.have.length(10);
      expect(statuses.filter((status) => status === 429)).to.have.length(CONCURRENT - 10);
      const refused = answers.find((answer) => answer.status === 429)!;
      expect(refused.body).to.include({ code: 'request.message_rate_limited' });
      expect(refused.retryAfter).to.match(/^\d+$/);
    });
  });
}
