import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { DomainError, RateLimitedError } from '../../lib/errors.ts';
import type { Recipient } from '../../lib/messaging/index.ts';
import { startService, type RunningService } from '../support/service.ts';
import { installFakeClock, type FakeClock } from '../support/clock.ts';
import { startMailbox, type Mailbox } from '../support/mailbox.ts';
import { Receiver, eventually } from '../support/webhooks/receiver.ts';
import {
  FAST_ENV,
  REDIS_URL,
  createHook,
  getJson,
  verifyDelivery,
  type CreatedHook,
} from '../support/webhooks/hooks.ts';

const address = () => `limited-${randomBytes(4).toString('hex')}@example.com`;
const email = (value: string): Recipient => ({ type: 'email', value });

async function outcome(attempt: Promise<void>): Promise<'sent' | DomainError> {
  try {
    await attempt;
    return 'sent';
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
}

for (const backend of ['embedded', 'redis'] as const) {
  describe(`per-recipient message rate limit (${backend})`, () => {
    let mailbox: Mailbox;
    let receiver: Receiver;
    let running: RunningService;
    let hook: CreatedHook;
    let clock: FakeClock | undefined;

    before(async () => {
      mailbox = await startMailbox();
      receiver = await Receiver.start();
      // Defaults: 10 messages per 600 s.
      running = await startService({
        env: { ...FAST_ENV, SMTP_URL: mailbox.url, REDIS_URL: backend === 'redis' ? REDIS_URL : undefined },
      });
      hook = await createHook(running, { events: ['Message.RateLimited'], config: { url: receiver.url('/hook') } });
    });
    afterEach(() => {
      clock?.uninstall();
      clock = undefined;
    });
    after(async () => {
      await running?.close();
      await receiver?.close();
      await mailbox?.close();
    });

    /** The Message.RateLimited deliveries the hook has for a recipient: enqueued before the refusing response. */
    /**
     * The Message.RateLimited deliveries of `recipient`, once at least `expected` of them are recorded: the outbox relay
     * records them after the request that published the events has answered.
     */
    async function rateLimitedDeliveries(recipient: string, expected: number) {
      return eventually(
        async () => {
          const found = await rateLimitedDeliveriesNow(recipient);
          return found.length >= expected && found;
        },
        { what: `${expected} Message.RateLimited deliveries` },
      );
    }

    async function rateLimitedDeliveriesNow(recipient: string) {
      const deliveries = await getJson<Array<{ id: string; event: string }>>(
        running,
        `/api/hooks/${hook.id}/deliveries?page_size=100`,
      );
      const mine: string[] = [];
      for (const delivery of deliveries.filter((d) => d.event === 'Message.RateLimited')) {
        const detail = await getJson<{ payload: { recipient: string } }>(
          running,
          `/api/hooks/${hook.id}/deliveries/${delivery.id}`,
        );
        if (detail.payload.recipient === recipient) mine.push(delivery.id);
      }
      return mine;
    }

    it('refuses the 11th invitation email to one address with 429 and Retry-After, sends nothing, and announces it once', async () => {
      const to = address();
      const created = await running.request('/api/organization-invitations', {
        method: 'POST',
        json: {
          organizationId: await organization(running),
          invitee: to,
          expiresAt: Date.now() + 86_400_000,
          messagePayload: { link: 'https://a.example.com/i' },
        },
      });
      expect(created.status, await created.clone().text()).to.equal(201);
      const { id } = (await created.json()) as { id: string };
      const resend = () =>
        running.request(`/api/organization-invitations/${id}/message`, {
          method: 'POST',
          json: { link: 'https://a.example.com/i' },
          headers: { 'user-agent': 'rate-limit-test/1' },
        });
      for (let sent = 2; sent <= 10; sent += 1) expect((await resend()).status, `message ${sent}`).to.equal(204);
      expect(mailbox.messages(to)).to.have.length(10);

      for (let refused = 1; refused <= 3; refused += 1) {
        const response = await resend();
        expect(response.status, `refusal ${refused}`).to.equal(429);
        expect(await response.json()).to.include({ code: 'request.message_rate_limited' });
        const retryAfter = Number(response.headers.get('retry-after'));
        expect(retryAfter).to.be.within(1, 600);
      }
      expect(mailbox.messages(to), 'nothing sent past the limit').to.have.length(10);

      expect(await rateLimitedDeliveries(to, 1), 'one event for three refusals').to.have.length(1);
      const [request] = await eventually(
        () => {
          const arrived = receiver.requests('/hook').filter((r) => JSON.parse(r.body).recipient === to);
          return arrived.length > 0 && arrived;
        },
        { what: 'the Message.RateLimited delivery' },
      );
      if (!request) throw new Error('no delivery');
      const payload = verifyDelivery(request, hook.signingKey);
      expect(payload).to.include({
        event: 'Message.RateLimited',
        hookId: hook.id,
        action: 'OrganizationInvitation',
        recipient: to,
        userAgent: 'rate-limit-test/1',
      });
      expect(payload.ip).to.be.a('string');
    });

    it('limits codes the same way, counting concurrent sends atomically: exactly ten go out, one event', async () => {
      const to = address();
      const results = await Promise.all(
        Array.from({ length: 16 }, () =>
          outcome(running.service.core.messaging.sendCode({ purpose: 'SignIn', to: email(to) })),
        ),
      );
      expect(results.filter((result) => result === 'sent')).to.have.length(10);
      const refusals = results.filter((result): result is DomainError => result !== 'sent');
      expect(refusals).to.have.length(6);
      for (const refusal of refusals) {
        expect(refusal.code).to.equal('request.message_rate_limited');
        expect(refusal).to.be.instanceOf(RateLimitedError);
        expect((refusal as RateLimitedError).retryAfterSeconds).to.be.within(1, 600);
      }
      expect(mailbox.messages(to)).to.have.length(10);
      const deliveries = await rateLimitedDeliveries(to, 1);
      expect(deliveries).to.have.length(1);
      const detail = await getJson<{ payload: Record<string, unknown> }>(
        running,
        `/api/hooks/${hook.id}/deliveries/${deliveries[0]}`,
      );
      expect(detail.payload).to.include({ action: 'SignIn', recipient: to });
      expect(JSON.stringify(detail.payload)).not.to.match(/\b\d{6}\b/);
    });

    if (backend === 'embedded') {
      it('opens a new window once the last one ends, with its own single event (fake clock)', async () => {
        clock = installFakeClock();
        const to = address();
        const send = () => outcome(running.service.core.messaging.sendCode({ purpose: 'Register', to: email(to) }));
        for (let sent = 1; sent <= 10; sent += 1) expect(await send()).to.equal('sent');
        const refused = await send();
        expect(refused).to.have.property('code', 'request.message_rate_limited');
        expect((refused as RateLimitedError).retryAfterSeconds).to.equal(600);
        clock.advance(600_000 - 1);
        expect(await send(), 'a millisecond before the window ends').to.have.property(
          'code',
          'request.message_rate_limited',
        );
        clock.advance(1);
        for (let sent = 1; sent <= 10; sent += 1) expect(await send(), `new window, message ${sent}`).to.equal('sent');
        expect(await send()).to.have.property('code', 'request.message_rate_limited');
        expect(mailbox.messages(to)).to.have.length(20);
        expect(await rateLimitedDeliveries(to, 2), 'one event per window').to.have.length(2);
      });
    }
  });
}

describe('message rate limit settings', () => {
  it('acts on MESSAGE_RATE_LIMIT_COUNT and MESSAGE_RATE_LIMIT_WINDOW_SECONDS (Redis, a one-second window, polled)', async () => {
    const mailbox = await startMailbox();
    const running = await startService({
      env: { SMTP_URL: mailbox.url, REDIS_URL, MESSAGE_RATE_LIMIT_COUNT: '2', MESSAGE_RATE_LIMIT_WINDOW_SECONDS: '1' },
    });
    try {
      const to = address();
      const send = () => outcome(running.service.core.messaging.sendCode({ purpose: 'Generic', to: email(to) }));
      expect(await send()).to.equal('sent');
      expect(await send()).to.equal('sent');
      const refused = await send();
      expect(refused).to.have.property('code', 'request.message_rate_limited');
      expect((refused as RateLimitedError).retryAfterSeconds).to.equal(1);
      const startedAt = performance.now();
      await eventually(async () => (await send()) === 'sent', {
        timeoutMs: 5000,
        intervalMs: 100,
        what: 'the window to end',
      });
      expect(performance.now() - startedAt).to.be.below(3000);
      expect(mailbox.messages(to)).to.have.length(3);
    } finally {
      await running.close();
      await mailbox.close();
    }
  });
});

async function organization(running: RunningService): Promise<string> {
  const response = await running.request('/api/organizations', {
    method: 'POST',
    json: { name: `org-${randomBytes(3).toString('hex')}` },
  });
  expect(response.status).to.equal(201);
  return ((await response.json()) as { id: string }).id;
}
