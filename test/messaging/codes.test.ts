import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { DomainError } from '../../lib/errors.ts';
import {
  CODE_DIGITS,
  MAX_CODE_ATTEMPTS,
  codeDigest,
  createVerificationCodes,
  digestsEqual,
} from '../../lib/messaging/codes.ts';
import type { KeyValueStore } from '../../lib/ports/kv.ts';
import { createMemoryKeyValueStore } from '../../adapters/memory/kv.ts';
import { createRedisKeyValueStore } from '../../adapters/redis/kv.ts';
import { installFakeClock, type FakeClock } from '../support/clock.ts';
import { eventually } from '../support/wait.ts';

const REDIS_URL = process.env.TEST_REDIS_URL ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** The code a rejected promise failed with, or 'ok'. */
async function outcome(attempt: Promise<void>): Promise<string> {
  try {
    await attempt;
    return 'ok';
  } catch (error) {
    if (error instanceof DomainError) return error.code;
    throw error;
  }
}

function wrong(code: string): string {
  return String((Number(code) + 1) % 10 ** CODE_DIGITS).padStart(CODE_DIGITS, '0');
}

for (const backend of ['memory', 'redis'] as const) {
  describe(`verification codes (${backend} key-value store)`, () => {
    let redis: Redis | undefined;
    let kv: KeyValueStore;
    const to = () => ({ type: 'email' as const, value: `user-${randomBytes(4).toString('hex')}@example.com` });

    beforeEach(() => {
      if (backend === 'redis') {
        redis ??= new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
        kv = createRedisKeyValueStore(redis, {
          prefix: `test-codes-${process.pid}-${randomBytes(3).toString('hex')}:`,
        });
      } else {
        kv = createMemoryKeyValueStore();
      }
    });
    after(async () => {
      await redis?.quit();
    });

    it('draws six digits, keeps only a salted digest, and spends a code once', async () => {
      const codes = createVerificationCodes({ kv, ttlSeconds: 600 });
      const recipient = to();
      const issued = codes.issue('SignIn', recipient);
      expect(issued.code).to.match(/^\d{6}$/);
      await issued.commit();

      const stored = await kv.get(`vcode:SignIn:email:${recipient.value}`);
      expect(stored, 'a record is kept').to.be.a('string');
      expect(stored).not.to.include(issued.code);
      const record = JSON.parse(String(stored)) as { salt: string; digest: string };
      expect(Buffer.from(record.digest, 'base64')).to.have.length(32);
      expect(
        Buffer.from(record.digest, 'base64').equals(codeDigest(Buffer.from(record.salt, 'base64'), issued.code)),
      ).to.equal(true);

      expect(await outcome(codes.verify('SignIn', recipient, issued.code))).to.equal('ok');
      expect(await outcome(codes.verify('SignIn', recipient, issued.code)), 'second use').to.equal(
        'verification_code.not_found',
      );
    });

    it('keeps codes apart by purpose and recipient, and a code drawn but never committed is not in force', async () => {
      const codes = createVerificationCodes({ kv, ttlSeconds: 600 });
      const recipient = to();
      const signIn = codes.issue('SignIn', recipient);
      await signIn.commit();
      expect(await outcome(codes.verify('Register', recipient, signIn.code))).to.equal('verification_code.not_found');
      expect(await outcome(codes.verify('SignIn', to(), signIn.code))).to.equal('verification_code.not_found');
      const uncommitted = codes.issue('Register', recipient);
      expect(await outcome(codes.verify('Register', recipient, uncommitted.code))).to.equal(
        'verification_code.not_found',
      );
      expect(await outcome(codes.verify('SignIn', recipient, signIn.code))).to.equal('ok');
    });

    it('replaces the previous code of the same purpose and recipient', async () => {
      const codes = createVerificationCodes({ kv, ttlSeconds: 600 });
      const recipient = to();
      const first = codes.issue('Register', recipient);
      await first.commit();
      let second = codes.issue('Register', recipient);
      for (let draws = 0; second.code === first.code && draws < 10; draws += 1)
        second = codes.issue('Register', recipient);
      await second.commit();
      expect(await outcome(codes.verify('Register', recipient, first.code))).to.equal(
        'verification_code.code_mismatch',
      );
      expect(await outcome(codes.verify('Register', recipient, second.code))).to.equal('ok');
    });

    it(`allows ${MAX_CODE_ATTEMPTS} attempts per code, then refuses even the right code`, async () => {
      const codes = createVerificationCodes({ kv, ttlSeconds: 600 });
      const recipient = to();
      const issued = codes.issue('ForgotPassword', recipient);
      await issued.commit();
      for (let attempt = 1; attempt <= MAX_CODE_ATTEMPTS; attempt += 1) {
        expect(
          await outcome(codes.verify('ForgotPassword', recipient, wrong(issued.code))),
          `attempt ${attempt}`,
        ).to.equal('verification_code.code_mismatch');
      }
      const refused = codes.verify('ForgotPassword', recipient, issued.code);
      expect(await outcome(refused)).to.equal('verification_code.exceed_max_try');
      await refused.catch((error: unknown) => expect(error).to.have.property('kind', 'rate_limited'));

      const fresh = codes.issue('ForgotPassword', recipient);
      await fresh.commit();
      expect(
        await outcome(codes.verify('ForgotPassword', recipient, fresh.code)),
        'a new code has its own attempts',
      ).to.equal('ok');
    });

    it('counts concurrent guesses atomically: of many at once, only five are evaluated and at most one spends the code', async () => {
      const codes = createVerificationCodes({ kv, ttlSeconds: 600 });
      const recipient = to();
      const issued = codes.issue('SignIn', recipient);
      await issued.commit();
      const results = await Promise.all(
        Array.from({ length: 20 }, () => outcome(codes.verify('SignIn', recipient, issued.code))),
      );
      expect(results.filter((result) => result === 'ok')).to.have.length(1);
      expect(results.filter((result) => result === 'verification_code.exceed_max_try')).to.have.length(
        20 - MAX_CODE_ATTEMPTS,
      );
      expect(results.filter((result) => result === 'verification_code.not_found')).to.have.length(
        MAX_CODE_ATTEMPTS - 1,
      );
    });

    it('treats any candidate, whatever its length or characters, as a counted mismatch', async () => {
      const codes = createVerificationCodes({ kv, ttlSeconds: 600 });
      const recipient = to();
      const issued = codes.issue('Generic', recipient);
      await issued.commit();
      for (const candidate of ['', `${issued.code}0`, 'abcdef', '１２３４５６']) {
        expect(await outcome(codes.verify('Generic', recipient, candidate)), JSON.stringify(candidate)).to.equal(
          'verification_code.code_mismatch',
        );
      }
      expect(await outcome(codes.verify('Generic', recipient, issued.code)), 'the fifth attempt').to.equal('ok');
    });

    if (backend === 'memory') {
      describe('expiry (fake clock)', () => {
        let clock: FakeClock;
        beforeEach(() => {
          clock = installFakeClock();
        });
        afterEach(() => clock.uninstall());

        it('holds for its lifetime, answers expired after it, and not_found once the record is gone', async () => {
          const codes = createVerificationCodes({ kv, ttlSeconds: 600 });
          const recipient = to();
          const issued = codes.issue('SignIn', recipient);
          await issued.commit();
          clock.advance(600_000 - 1);
          expect(await outcome(codes.verify('SignIn', recipient, wrong(issued.code))), 'a millisecond before').to.equal(
            'verification_code.code_mismatch',
          );
          clock.advance(1);
          expect(await outcome(codes.verify('SignIn', recipient, issued.code))).to.equal('verification_code.expired');
          clock.advance(600_000);
          expect(await outcome(codes.verify('SignIn', recipient, issued.code))).to.equal('verification_code.not_found');
        });
      });
    } else {
      it("expires on the store's own clock (a one-second lifetime, polled)", async () => {
        const codes = createVerificationCodes({ kv, ttlSeconds: 1 });
        const recipient = to();
        const issued = codes.issue('SignIn', recipient);
        await issued.commit();
        const record = `vcode:SignIn:email:${recipient.value}`;
        // The record outlives the code by one lifetime: once less than that is left, the code has expired.
        await eventually(
          async () => {
            const left = await kv.ttl(record);
            return left >= 0 && left < 1000 - 50;
          },
          { timeoutMs: 5000, intervalMs: 20, what: 'the code lifetime to pass' },
        );
        expect(await outcome(codes.verify('SignIn', recipient, issued.code))).to.equal('verification_code.expired');
        await eventually(async () => (await kv.ttl(record)) === -2, {
          timeoutMs: 5000,
          intervalMs: 20,
          what: 'the record to expire',
        });
        expect(await outcome(codes.verify('SignIn', recipient, issued.code))).to.equal('verification_code.not_found');
      });
    }
  });
}

describe('verification code comparison', () => {
  it('compares digests of one fixed length, whatever the candidate', () => {
    const salt = randomBytes(16);
    const lengths = new Set(
      ['', '1', '123456', 'x'.repeat(10_000), '１２３４５６'].map((candidate) => codeDigest(salt, candidate).length),
    );
    expect([...lengths]).to.deep.equal([32]);
    expect(digestsEqual(codeDigest(salt, '123456'), codeDigest(salt, '123456'))).to.equal(true);
    expect(digestsEqual(codeDigest(salt, '123456'), codeDigest(salt, '123457'))).to.equal(false);
    expect(digestsEqual(codeDigest(salt, '123456'), codeDigest(randomBytes(16), '123456')), 'another salt').to.equal(
      false,
    );
    expect(
      digestsEqual(codeDigest(salt, '123456'), Buffer.alloc(5)),
      'a shorter buffer is unequal, not an error',
    ).to.equal(false);
  });
});
