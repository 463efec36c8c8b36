/**
 * Sign-in lockout rules, on the embedded key-value store with a fake clock: the window and the lock are
 * checked to the millisecond without waiting for them.
 */
import { expect } from 'chai';
import { createMemoryKeyValueStore } from '../../../adapters/memory/kv.ts';
import { EventBus, type IdentityEvent } from '../../../lib/events/bus.ts';
import { createLockout, type Identifier, type Lockout } from '../../../lib/sign-in/lockout.ts';
import { installFakeClock, type FakeClock } from '../../support/clock.ts';

const THRESHOLD = 3;
const LOCK_MS = 600_000;

describe('sign-in lockout (library)', () => {
  let clock: FakeClock;
  let lockout: Lockout;
  let published: IdentityEvent[];

  beforeEach(() => {
    clock = installFakeClock();
    const bus = new EventBus();
    published = [];
    bus.subscribe(async (events) => {
      published.push(...events);
    });
    lockout = createLockout({
      kv: createMemoryKeyValueStore(),
      bus,
      policy: { threshold: THRESHOLD, lockSeconds: LOCK_MS / 1000 },
    });
  });
  afterEach(() => clock.uninstall());

  const alice: Identifier = { type: 'username', value: 'alice' };
  const aliceEmail: Identifier = { type: 'email', value: 'alice@example.com' };

  /** Reserves an attempt and reports it failed; whether that left the subject locked. */
  async function fail(identifier: Identifier, accountId?: string): Promise<boolean> {
    const attempt = await lockout.reserve(identifier, accountId);
    expect(attempt, `an attempt for ${identifier.value} is reserved`).to.not.equal(null);
    return attempt!.failed();
  }

  it('locks on the failure that reaches the threshold, and announces it once', async () => {
    expect(await fail(alice, 'u1')).to.equal(false);
    expect(await fail(alice, 'u1')).to.equal(false);
    expect(published).to.deep.equal([]);
    expect(await fail(alice, 'u1')).to.equal(true);
    expect(await lockout.reserve(alice, 'u1'), 'refused unchecked while locked').to.equal(null);
    expect(published).to.have.length(1);
    expect(published[0]).to.deep.equal({
      event: 'Identifier.Lockout',
      createdAt: new Date().toISOString(),
      type: 'username',
      value: 'alice',
    });
  });

  it('keeps the lock for exactly the lock period, refusals not extending it', async () => {
    for (let i = 0; i < THRESHOLD; i += 1) await fail(alice, 'u1');
    clock.advance(LOCK_MS - 1);
    expect(await lockout.reserve(alice, 'u1'), 'a millisecond before the lock ends').to.equal(null);
    clock.advance(1);
    const attempt = await lockout.reserve(alice, 'u1');
    expect(attempt).to.not.equal(null);
    expect(await attempt!.succeeded()).to.equal(true);
    expect(published, 'one lock, one announcement').to.have.length(1);
  });

  it('counts the email and the username of one account against one budget', async () => {
    expect(await fail(alice, 'u1')).to.equal(false);
    expect(await fail(aliceEmail, 'u1')).to.equal(false);
    expect(await fail(alice, 'u1')).to.equal(true);
    expect(await lockout.reserve(aliceEmail, 'u1')).to.equal(null);
    expect(published, 'the identifier typed in the locking attempt').to.have.length(1);
    expect(published[0]).to.include({ type: 'username', value: 'alice' });
  });

  it('counts identifiers that name no account each on their own, and apart from any account', async () => {
    const nobody: Identifier = { type: 'username', value: 'nobody' };
    for (let i = 0; i < THRESHOLD; i += 1) await fail(nobody);
    expect(await lockout.reserve(nobody)).to.equal(null);
    expect(await lockout.reserve({ type: 'email', value: 'nobody' }), 'another identifier type').to.not.equal(null);
    expect(await lockout.reserve({ type: 'username', value: 'somebody' }), 'another value').to.not.equal(null);
    expect(await lockout.reserve(nobody, 'u9'), 'an account of that name has its own budget').to.not.equal(null);
    expect(published).to.have.length(1);
    expect(published[0]).to.include({ type: 'username', value: 'nobody' });
  });

  it('evaluates at most the threshold of attempts reserved at once, and locks once', async () => {
    const reserved = await Promise.all(Array.from({ length: 10 }, () => lockout.reserve(alice, 'u1')));
    const granted = reserved.filter((attempt) => attempt !== null);
    expect(granted).to.have.length(THRESHOLD);
    const locked = await Promise.all(granted.map((attempt) => attempt!.failed()));
    expect(locked.filter(Boolean), 'the last failures see the lock').to.have.length.of.at.least(1);
    expect(published).to.have.length(1);
  });

  it('refuses attempts past the threshold within one window even when none has failed yet', async () => {
    const pending = [];
    for (let i = 0; i < THRESHOLD; i += 1) pending.push(await lockout.reserve(alice, 'u1'));
    expect(pending.every((attempt) => attempt !== null)).to.equal(true);
    expect(await lockout.reserve(alice, 'u1')).to.equal(null);
    expect(published, 'no failure, no lock').to.deep.equal([]);
  });

  it('starts the count over when the window of the first attempt ends without a lock', async () => {
    expect(await fail(alice, 'u1')).to.equal(false);
    expect(await fail(alice, 'u1')).to.equal(false);
    clock.advance(LOCK_MS - 1);
    expect(await fail(alice, 'u1'), 'still inside the window').to.equal(true);

    expect(await fail(alice, 'u2')).to.equal(false);
    expect(await fail(alice, 'u2')).to.equal(false);
    clock.advance(LOCK_MS);
    expect(await fail(alice, 'u2'), 'the window ended').to.equal(false);
    expect(await fail(alice, 'u2')).to.equal(false);
  });

  it('forgets failures after a success', async () => {
    expect(await fail(alice, 'u1')).to.equal(false);
    expect(await fail(alice, 'u1')).to.equal(false);
    expect(await (await lockout.reserve(alice, 'u1'))!.succeeded()).to.equal(true);
    expect(await fail(alice, 'u1')).to.equal(false);
    expect(await fail(alice, 'u1')).to.equal(false);
    expect(await fail(alice, 'u1')).to.equal(true);
  });

  it('refuses a correct password checked while another attempt locked the account', async () => {
    // Failures are remembered from the first failure, attempts from the first reservation: a little of the
    // failure count outlives the attempts window, so a new window can lock with a correct attempt in flight.
    const first = await lockout.reserve(alice, 'u1');
    clock.advance(10);
    expect(await first!.failed()).to.equal(false);
    expect(await fail(alice, 'u1')).to.equal(false);
    clock.advance(LOCK_MS - 10);
    const right = await lockout.reserve(alice, 'u1');
    expect(right, 'a new attempts window').to.not.equal(null);
    expect(await fail(alice, 'u1'), 'the third failure within its window').to.equal(true);
    expect(await right!.succeeded(), 'the lock wins').to.equal(false);
    expect(await lockout.reserve(alice, 'u1')).to.equal(null);
  });
});
