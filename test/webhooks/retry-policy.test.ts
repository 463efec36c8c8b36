import { expect } from 'chai';
import { DEFAULT_RETRY_DELAYS_MS, classify, nextDelayMs, parseRetryDelays } from '../../lib/webhooks/retry-policy.ts';
import type { SendResult } from '../../lib/webhooks/sender.ts';

const response = (status: number): SendResult => ({ ok: status >= 200 && status < 300, status, latencyMs: 1 });

describe('webhook retry policy', () => {
  describe('parseRetryDelays', () => {
    it('parses comma-separated milliseconds', () => {
      expect(parseRetryDelays('50, 100 ,0')).to.deep.equal([50, 100, 0]);
      expect(parseRetryDelays('5000')).to.deep.equal([5000]);
    });

    for (const text of ['', ' ', '1,,2', '1,', '-5', '1.5', 'abc', '10ms', '99999999999999999999']) {
      it(`rejects ${JSON.stringify(text)}`, () => {
        expect(() => parseRetryDelays(text)).to.throw(/Invalid retry delays/);
      });
    }
  });

  it('has a default schedule spanning hours', () => {
    const total = DEFAULT_RETRY_DELAYS_MS.reduce((sum, delay) => sum + delay, 0);
    expect(DEFAULT_RETRY_DELAYS_MS[0]).to.equal(5000);
    expect(total).to.be.greaterThan(12 * 3600 * 1000);
    expect(Object.isFrozen(DEFAULT_RETRY_DELAYS_MS)).to.equal(true);
  });

  describe('classify', () => {
    const cases: Array<[SendResult, string]> = [
      [response(200), 'succeeded'],
      [response(204), 'succeeded'],
      [response(500), 'retry'],
      [response(503), 'retry'],
      [response(408), 'retry'],
      [response(429), 'retry'],
      [response(301), 'retry'],
      [response(302), 'retry'],
      [response(400), 'final'],
      [response(401), 'final'],
      [response(404), 'final'],
      [response(410), 'gone'],
      [{ ok: false, latencyMs: 10, error: 'timeout' }, 'retry'],
      [{ ok: false, latencyMs: 1, error: 'connect ECONNREFUSED 127.0.0.1:1' }, 'retry'],
    ];
    for (const [result, outcome] of cases) {
      it(`${result.status ?? result.error} → ${outcome}`, () => expect(classify(result)).to.equal(outcome));
    }
  });

  describe('nextDelayMs', () => {
    const delays = [1000, 2000, 3000];
    const base = { delays, retryAfterCapMs: 60_000 };

    it('follows the schedule, attempt by attempt', () => {
      const middle = () => 0.5;
      expect(nextDelayMs({ ...base, attempt: 1, random: middle })).to.equal(1000);
      expect(nextDelayMs({ ...base, attempt: 2, random: middle })).to.equal(2000);
      expect(nextDelayMs({ ...base, attempt: 3, random: middle })).to.equal(3000);
    });

    it('is exhausted after delays.length retries', () => {
      expect(nextDelayMs({ ...base, attempt: 4 })).to.equal(undefined);
      expect(nextDelayMs({ ...base, attempt: 1, delays: [] })).to.equal(undefined);
    });

    it('applies ±20 % jitter', () => {
      expect(nextDelayMs({ ...base, attempt: 2, random: () => 0 })).to.equal(1600);
      expect(nextDelayMs({ ...base, attempt: 2, random: () => 0.999999 })).to.equal(2400);
      for (let i = 0; i < 100; i += 1) {
        const delay = nextDelayMs({ ...base, attempt: 2 })!;
        expect(delay).to.be.within(1600, 2400);
      }
    });

    it('lets a larger Retry-After win, up to the cap', () => {
      const middle = () => 0.5;
      expect(nextDelayMs({ ...base, attempt: 1, retryAfterMs: 10_000, random: middle })).to.equal(10_000);
      expect(nextDelayMs({ ...base, attempt: 1, retryAfterMs: 500, random: middle })).to.equal(1000);
      expect(nextDelayMs({ ...base, attempt: 1, retryAfterMs: 3_600_000, random: middle })).to.equal(60_000);
    });

    it('does not let Retry-After add retries', () => {
      expect(nextDelayMs({ ...base, attempt: 4, retryAfterMs: 10 })).to.equal(undefined);
    });
  });
});
