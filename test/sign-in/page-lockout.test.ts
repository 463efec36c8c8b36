import { expect } from 'chai';
import type { IdentityEvent } from '../../lib/events/bus.ts';
import { startService, type RunningService } from '../support/service.ts';
import { createUser } from '../support/fixtures.ts';
import { installFakeClock, type FakeClock } from '../support/clock.ts';
import { eventually } from '../support/wait.ts';
import { signInClient, type SignInOutcome } from '../support/sign-in-form.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const RIGHT = 'the right password';

for (const backend of ['embedded', 'redis'] as const) {
  describe(`identifier lockout on the sign-in page (${backend})`, () => {
    // The embedded store expires on the fake clock, so its lock lasts as long as the default; Redis expires
    // on its own clock, so it gets a short lock, awaited for real: two seconds, because the failures are also
    // remembered that long, and the three of the first test must fall within it even on a loaded machine.
    const lockSeconds = backend === 'embedded' ? 600 : 2;
    let clock: FakeClock | undefined;
    let running: RunningService;
    let events: IdentityEvent[];
    let username: string;
    let pages: Awaited<ReturnType<typeof signInClient>>;

    before(async () => {
      if (backend === 'embedded') clock = installFakeClock();
      running = await startService({
        env: {
          LOCKOUT_THRESHOLD: '3',
          LOCKOUT_SECONDS: String(lockSeconds),
          REDIS_URL: backend === 'redis' ? REDIS_URL : undefined,
        },
      });
      const user = await createUser(running, [], {}, RIGHT);
      username = String(user.username);
      pages = await signInClient(running);
      events = [];
      running.service.core.bus.subscribe(async (published) => {
        events.push(...published.filter((event) => event.event === 'Identifier.Lockout'));
      });
    });
    after(async () => {
      await running.close();
      clock?.uninstall();
    });

    const attempt = async (password: string) => (await pages.open()).submit(username, password);

    /** The right password, retried until the lock lets it through; every refusal meanwhile is the lock's 429. */
    async function signInOnceUnlocked(): Promise<SignInOutcome> {
      const refusedWhileLocked = (outcome: SignInOutcome) => {
        if (!outcome.signedIn) expect(outcome.status, 'refused while locked').to.equal(429);
        return outcome;
      };
      if (clock) {
        clock.advance(lockSeconds * 1000 - 1);
        const justBefore = refusedWhileLocked(await attempt(RIGHT));
        expect(justBefore.signedIn, 'a millisecond before the lock ends').to.equal(false);
        clock.advance(1);
        return attempt(RIGHT);
      }
      const lockedAt = performance.now();
      const outcome = await eventually(
        async () => {
          const tried = refusedWhileLocked(await attempt(RIGHT));
          return tried.signedIn && tried;
        },
        { timeoutMs: lockSeconds * 1000 + 5000, intervalMs: 50, what: 'a sign-in once the lock expired' },
      );
      expect(performance.now() - lockedAt, 'the lock held for a while').to.be.at.least(lockSeconds * 500);
      return outcome;
    }

    it('locks after the threshold, refuses even the right password while locked, announces the lock once, then lets go', async () => {
      expect((await attempt('wrong 1')).status).to.equal(401);
      expect((await attempt('wrong 2')).status).to.equal(401);
      const third = await attempt('wrong 3');
      expect(third.status).to.equal(429);
      expect(third.page).to.include('Too many failed attempts');
      const whileLocked = await attempt(RIGHT);
      expect(whileLocked.signedIn).to.equal(false);
      expect(whileLocked.status).to.equal(429);
      expect(events).to.have.length(1);
      expect(events[0]).to.include({ event: 'Identifier.Lockout', type: 'username', value: username });

      // Refused attempts do not extend the lock, so the right password gets through once it expires.
      expect((await signInOnceUnlocked()).signedIn, 'the lock expired').to.equal(true);
      expect(events).to.have.length(1);
    });

    it('forgets failures after a successful sign-in', async () => {
      expect((await attempt('wrong')).status).to.equal(401);
      expect((await attempt('wrong')).status).to.equal(401);
      expect((await attempt(RIGHT)).signedIn).to.equal(true);
      expect((await attempt('wrong')).status, 'the count started over').to.equal(401);
    });
  });
}
