import { expect } from 'chai';
import { startService, type RunningService } from '../support/service.ts';
import { createUser } from '../support/fixtures.ts';
import { signInClient } from './sign-in-form.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

for (const backend of ['embedded', 'redis'] as const) {
  describe(`identifier lockout on the sign-in page (${backend})`, () => {
    let running: RunningService;
    let events: Array<Record<string, unknown>>;
    let username: string;
    let pages: Awaited<ReturnType<typeof signInClient>>;

    before(async () => {
      running = await startService({
        env: { LOCKOUT_THRESHOLD: '3', LOCKOUT_SECONDS: '1', REDIS_URL: backend === 'redis' ? REDIS_URL : undefined },
      });
      const user = await createUser(running, [], {}, 'the right password');
      username = String(user.username);
      pages = await signInClient(running);
      events = [];
      running.service.core.bus.subscribe(async (published) => {
        events.push(...published.filter((event) => event.event === 'Identifier.Lockout'));
      });
    });
    after(() => running.close());

    const attempt = async (password: string) => (await pages.open()).submit(username, password);

    it('locks after the threshold, refuses even the right password while locked, announces the lock once, then lets go', async () => {
      expect((await attempt('wrong 1')).status).to.equal(401);
      expect((await attempt('wrong 2')).status).to.equal(401);
      const third = await attempt('wrong 3');
      expect(third.status).to.equal(429);
      expect(third.page).to.include('Too many failed attempts');
      const whileLocked = await attempt('the right password');
      expect(whileLocked.signedIn).to.equal(false);
      expect(whileLocked.status).to.equal(429);
      expect(events).to.have.length(1);
      expect(events[0]).to.include({ event: 'Identifier.Lockout', type: 'username', value: username });

      // Refused attempts do not extend the lock, so retrying the right password gets through once it expires.
      const lockedAt = Date.now();
      let outcome = whileLocked;
      for (let tries = 0; tries < 40 && !outcome.signedIn; tries += 1) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        outcome = await attempt('the right password');
        if (!outcome.signedIn) expect(outcome.status).to.equal(429);
      }
      expect(outcome.signedIn, 'the lock expired').to.equal(true);
      expect(Date.now() - lockedAt).to.be.at.least(500);
      expect(events).to.have.length(1);
    });

    it('forgets failures after a successful sign-in', async () => {
      expect((await attempt('wrong')).status).to.equal(401);
      expect((await attempt('wrong')).status).to.equal(401);
      expect((await attempt('the right password')).signedIn).to.equal(true);
      expect((await attempt('wrong')).status, 'the count started over').to.equal(401);
    });
  });
}
