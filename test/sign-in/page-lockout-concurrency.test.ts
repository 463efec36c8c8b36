import { expect } from 'chai';
import { newId } from '../../lib/ids.ts';
import { startService, type RunningService } from '../support/service.ts';
import { createUser } from '../support/fixtures.ts';
import { signInClient, type SignInOutcome } from '../support/sign-in-form.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const THRESHOLD = 10;
const RIGHT = 'the right password';

function tally(outcomes: SignInOutcome[]) {
  return {
    wrong: outcomes.filter((o) => o.status === 401).length,
    locked: outcomes.filter((o) => o.status === 429).length,
    signedIn: outcomes.filter((o) => o.signedIn).length,
  };
}

for (const backend of ['embedded', 'redis'] as const) {
  describe(`lockout under concurrent sign-in attempts (${backend})`, () => {
    let running: RunningService;
    let lockouts: Array<Record<string, unknown>>;
    let pages: Awaited<ReturnType<typeof signInClient>>;

    before(async () => {
      running = await startService({
        env: {
          LOCKOUT_THRESHOLD: String(THRESHOLD),
          LOCKOUT_SECONDS: '120',
          REDIS_URL: backend === 'redis' ? REDIS_URL : undefined,
        },
      });
      pages = await signInClient(running);
      lockouts = [];
      running.service.core.bus.subscribe(async (published) => {
        lockouts.push(...published.filter((event) => event.event === 'Identifier.Lockout'));
      });
    });
    after(() => running.close());

    const lockoutsOf = (...values: string[]) => lockouts.filter((event) => values.includes(String(event.value)));

    /** Opens every sign-in page first, then submits all forms at once, in order. */
    async function concurrently(guesses: Array<{ identifier: string; password: string }>): Promise<SignInOutcome[]> {
      const opened = await Promise.all(guesses.map(() => pages.open()));
      return Promise.all(opened.map((page, i) => page.submit(guesses[i]!.identifier, guesses[i]!.password)));
    }

    it('evaluates at most the threshold of 100 simultaneous guesses: the right one, last, is refused and one lock is announced', async () => {
      const user = await createUser(running, [], {}, RIGHT);
      const username = String(user.username);
      const guesses = Array.from({ length: 99 }, (_, i) => ({ identifier: username, password: `wrong ${i}` }));
      const outcomes = await concurrently([...guesses, { identifier: username, password: RIGHT }]);

      expect(outcomes[99]!.signedIn, 'the right password, past the threshold').to.equal(false);
      expect(outcomes[99]!.status).to.equal(429);
      const counts = tally(outcomes);
      expect(counts.signedIn).to.equal(0);
      expect(counts.wrong, 'answered "wrong password"').to.be.within(1, THRESHOLD);
      expect(counts.wrong + counts.locked, 'every other answer is "locked"').to.equal(100);
      expect(
        outcomes.filter((o) => o.status === 429).every((o) => o.page.includes('Too many failed attempts')),
      ).to.equal(true);
      expect(lockoutsOf(username)).to.have.length(1);
      expect(lockoutsOf(username)[0]).to.include({ type: 'username', value: username });

      const later = await (await pages.open()).submit(username, RIGHT);
      expect(later.status, 'still locked').to.equal(429);
      expect(lockoutsOf(username)).to.have.length(1);
    });

    it('counts the email and the username of one account against one budget', async () => {
      const email = `lockout-${newId(8).toLowerCase()}@example.com`;
      const user = await createUser(running, [], { primaryEmail: email }, RIGHT);
      const username = String(user.username);
      const identifierOf = (i: number) => (i % 2 === 0 ? username : email);

      for (let i = 0; i < THRESHOLD; i += 1) {
        const outcome = await (await pages.open()).submit(identifierOf(i), `wrong ${i}`);
        expect(outcome.status, `failure ${i + 1} with the ${i % 2 === 0 ? 'username' : 'email'}`).to.equal(
          i < THRESHOLD - 1 ? 401 : 429,
        );
      }
      for (const identifier of [email, username]) {
        const outcome = await (await pages.open()).submit(identifier, RIGHT);
        expect(outcome.signedIn, `${identifier} with the right password`).to.equal(false);
        expect(outcome.status).to.equal(429);
      }
      expect(lockoutsOf(username, email)).to.have.length(1);
      expect(lockoutsOf(username, email)[0]).to.include({ type: 'email', value: email });
    });

    it('shares the budget between email and username under concurrency too', async () => {
      const email = `lockout-${newId(8).toLowerCase()}@example.com`;
      const user = await createUser(running, [], { primaryEmail: email }, RIGHT);
      const username = String(user.username);
      const guesses = Array.from({ length: 99 }, (_, i) => ({
        identifier: i % 2 === 0 ? username : email,
        password: `wrong ${i}`,
      }));
      const outcomes = await concurrently([...guesses, { identifier: email, password: RIGHT }]);

      expect(outcomes[99]!.signedIn).to.equal(false);
      const counts = tally(outcomes);
      expect(counts.wrong).to.be.within(1, THRESHOLD);
      expect(counts.wrong + counts.locked).to.equal(100);
      expect(lockoutsOf(username, email)).to.have.length(1);
    });

    it('treats an identifier that names no account the same way', async () => {
      const unknown = `nobody_${newId(8)}`;
      const outcomes = await concurrently(
        Array.from({ length: 30 }, (_, i) => ({ identifier: unknown, password: `wrong ${i}` })),
      );
      const counts = tally(outcomes);
      expect(counts.wrong).to.be.within(1, THRESHOLD);
      expect(counts.wrong + counts.locked).to.equal(30);
      expect(lockoutsOf(unknown)).to.have.length(1);
      expect(lockoutsOf(unknown)[0]).to.include({ type: 'username', value: unknown });
    });
  });
}
