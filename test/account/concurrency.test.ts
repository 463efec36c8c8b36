import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { startService, type RunningService } from '../support/service.ts';
import { createUser } from '../support/fixtures.ts';
import { startMailbox, type Mailbox } from '../support/mailbox.ts';
import { REDIS_URL } from '../support/webhooks/hooks.ts';
import type { IdentityEvent } from '../../lib/events/bus.ts';
import { accountClient, asUser, type AccountClient } from '../support/account.ts';

const PASSWORD = 'correct horse battery';
const CONCURRENT = 100;

for (const backend of ['embedded', 'redis'] as const) {
  describe(`Account API counting under concurrency (${backend})`, () => {
    let mailbox: Mailbox;
    let running: RunningService;
    let apps: AccountClient;
    const events: IdentityEvent[] = [];

    before(async () => {
      mailbox = await startMailbox();
      running = await startService({
        env: { SMTP_URL: mailbox.url, REDIS_URL: backend === 'redis' ? REDIS_URL : undefined, LOCKOUT_THRESHOLD: '3' },
      });
      expect(running.service.core.kv.kind).to.equal(backend === 'redis' ? 'redis' : 'sqlite');
      running.service.core.bus.subscribe(async (published) => {
        events.push(...published);
      });
      apps = await accountClient(running);
    });
    after(async () => {
      await running?.close();
      await mailbox?.close();
    });

    async function member() {
      const username = `member_${randomBytes(4).toString('hex')}`;
      const user = await createUser(running, [], { username }, PASSWORD);
      return { user, me: asUser(running, await apps.signIn(username, PASSWORD)) };
    }

    it(`evaluates at most the lockout threshold of ${CONCURRENT} concurrent wrong passwords, and locks once`, async () => {
      const { me, user } = await member();
      const answers = await Promise.all(
        Array.from({ length: CONCURRENT }, () =>
          me('/api/verifications/password', { method: 'POST', json: { password: 'not my password' } }),
        ),
      );
      const statuses = answers.map((answer) => answer.status);
      expect(statuses.filter((status) => status >= 500)).to.deep.equal([]);
      // Threshold 3: two failures answer as such, the third locks, every other attempt is refused unevaluated.
      expect(statuses.filter((status) => status === 422).length).to.be.at.most(2);
      expect(statuses.filter((status) => status === 429).length).to.be.at.least(CONCURRENT - 2);
      expect(statuses.filter((status) => status === 201)).to.deep.equal([]);
      expect(events.filter((event) => event.event === 'Identifier.Lockout' && event.value === user.id)).to.have.length(
        1,
      );
      expect(events.find((event) => event.event === 'Identifier.Lockout' && event.value === user.id)).to.include({
        type: 'userId',
      });
    });

    it(`sends exactly the per-recipient limit of ${CONCURRENT} concurrent codes to one address, and announces the limit once`, async () => {
      const { me } = await member();
      const target = `burst-${randomBytes(4).toString('hex')}@example.com`;
      const answers = await Promise.all(
        Array.from({ length: CONCURRENT }, () =>
          me('/api/verifications/verification-code', {
            method: 'POST',
            json: { identifier: { type: 'email', value: target } },
          }),
        ),
      );
      const statuses = answers.map((answer) => answer.status);
      expect(statuses.filter((status) => status === 201)).to.have.length(10);
      expect(statuses.filter((status) => status === 429)).to.have.length(CONCURRENT - 10);
      expect(
        events.filter((event) => event.event === 'Message.RateLimited' && event.recipient === target),
      ).to.have.length(1);
    });
  });
}
