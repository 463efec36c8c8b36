import { expect } from 'chai';
import { createMemoryKeyValueStore } from '../../../adapters/memory/kv.ts';
import { resolveSettings } from '../../../lib/settings.ts';
import { createFailureStreaks } from '../../../lib/webhooks/failure-streak.ts';
import { capturingLogger } from '../../support/logs.ts';
import { startService, type RunningService } from '../../support/service.ts';
import { BACKENDS, FAST_ENV, REDIS_URL, createHook, getJson } from '../../support/webhooks/hooks.ts';
import { Receiver, eventually } from '../../support/webhooks/receiver.ts';

const DISABLE_AFTER_MS = 400;

for (const backend of BACKENDS) {
  describe(`webhook hooks disabled by the service (${backend})`, () => {
    let receiver: Receiver;
    let running: RunningService;
    const { logger, lines } = capturingLogger();

    before(async () => {
      receiver = await Receiver.start();
      running = await startService({
        logger,
        env: {
          ...FAST_ENV,
          REDIS_URL: backend === 'bullmq' ? REDIS_URL : undefined,
          WEBHOOK_AUTO_DISABLE_AFTER_MS: String(DISABLE_AFTER_MS),
          WEBHOOK_BREAKER_FAILURES: '1000',
          WEBHOOK_RETRY_DELAYS_MS: Array.from({ length: 20 }, () => '100').join(','),
        },
      });
    });
    after(async () => {
      await running.close();
      await receiver.close();
    });

    const trigger = async (name: string) => {
      expect((await running.request('/api/roles', { method: 'POST', json: { name } })).status).to.equal(201);
    };

    it('disables a hook whose every attempt failed for WEBHOOK_AUTO_DISABLE_AFTER_MS, says why, and logs it at warn', async () => {
      receiver.script('/down', () => ({ status: 503, body: 'down' }));
      const hook = await createHook(running, { events: ['Role.Created'], config: { url: receiver.url('/down') } });
      await trigger('streak-role');
      const disabled = await eventually(
        async () => {
          const current = await getJson(running, `/api/hooks/${hook.id}`);
          return current.enabled === false && current;
        },
        { what: 'the hook to be disabled' },
      );
      expect(disabled.disabledReason).to.match(
        /^every delivery attempt failed from \S+Z to \S+Z \(WEBHOOK_AUTO_DISABLE_AFTER_MS\)$/,
      );
      const [from, to] = [...disabled.disabledReason.matchAll(/\d{4}-\S+Z/g)].map((match) => Date.parse(match[0]));
      expect(to! - from!).to.be.at.least(DISABLE_AFTER_MS);
      const [delivery] = await getJson(running, `/api/hooks/${hook.id}/deliveries`);
      expect(delivery).to.include({ status: 'failed', nextRetryAt: null, lastResponseStatus: 503 });
      expect(delivery.attempts).to.equal(receiver.requests('/down').length);
      // The warning follows the write that disabled the hook, which the read above may have seen first.
      const warning = await eventually(
        () => lines.find((line) => line.msg === 'webhook hook disabled' && line.hookId === hook.id),
        { what: 'the warning that the hook was disabled' },
      );
      expect(warning).to.include({ level: 40, reason: disabled.disabledReason });

      const enabled = await running.request(`/api/hooks/${hook.id}`, { method: 'PATCH', json: { enabled: true } });
      expect(await enabled.json()).to.include({ enabled: true, disabledReason: null });
    });

    it('keeps a hook whose failures are interrupted by successes, however long it has been failing', async () => {
      // Every third request succeeds: each event takes two failures 100 ms apart, then gets through.
      receiver.script('/flaky', (nth) => (nth % 3 === 0 ? { status: 200 } : { status: 503 }));
      const hook = await createHook(running, { events: ['Role.Created'], config: { url: receiver.url('/flaky') } });
      const started = performance.now();
      for (let i = 0; i < 4; i += 1) {
        await trigger(`flaky-role-${i}`);
        await eventually(
          async () => {
            const deliveries = await getJson<any[]>(running, `/api/hooks/${hook.id}/deliveries`);
            return deliveries.length === i + 1 && deliveries.every((delivery) => delivery.status === 'succeeded');
          },
          { what: `delivery ${i} to succeed` },
        );
      }
      expect(performance.now() - started, 'failing on and off for longer than the period').to.be.above(
        DISABLE_AFTER_MS,
      );
      expect(receiver.requests('/flaky')).to.have.length(12);
      expect(await getJson(running, `/api/hooks/${hook.id}`)).to.include({ enabled: true, disabledReason: null });
    });

    it('names 410 Gone as the reason when the endpoint asked for it', async () => {
      receiver.script('/gone', () => ({ status: 410 }));
      const hook = await createHook(running, { events: ['Role.Created'], config: { url: receiver.url('/gone') } });
      expect(hook.disabledReason).to.equal(null);
      await trigger('gone-role');
      const disabled = await eventually(async () => {
        const current = await getJson(running, `/api/hooks/${hook.id}`);
        return current.enabled === false && current;
      });
      expect(disabled.disabledReason).to.equal('the endpoint answered 410 Gone');
      const manual = await running.request(`/api/hooks/${hook.id}`, { method: 'PATCH', json: { enabled: false } });
      expect(await manual.json()).to.include({ enabled: false, disabledReason: null });
    });
  });
}

describe('webhook failure streaks', () => {
  it('start at the first failure, end at a success, and call for disabling once long enough', async () => {
    const streaks = createFailureStreaks({ kv: createMemoryKeyValueStore(), disableAfterMs: 1000 });
    expect(await streaks.record('h', true, await streaks.since('h'), 10_000)).to.equal(null);
    expect(await streaks.since('h')).to.equal(10_000);
    expect(await streaks.record('h', true, 10_000, 10_999)).to.equal(null);
    expect(await streaks.record('h', true, 10_000, 11_000)).to.equal(10_000);
    expect(await streaks.record('h', false, 10_000, 11_001)).to.equal(null);
    expect(await streaks.since('h')).to.equal(null);
    expect(await streaks.since('other')).to.equal(null);
  });

  it('do nothing when WEBHOOK_AUTO_DISABLE_AFTER_MS is 0', async () => {
    const kv = createMemoryKeyValueStore();
    const streaks = createFailureStreaks({ kv, disableAfterMs: 0 });
    expect(await streaks.record('h', true, null, 1)).to.equal(null);
    expect(await streaks.since('h')).to.equal(null);
    expect(await streaks.record('h', true, 0, 10 ** 12)).to.equal(null);
  });
});

describe('webhook isolation settings', () => {
  it('refuse an endpoint share larger than WEBHOOK_CONCURRENCY, and invalid breaker values', () => {
    expect(() => resolveSettings({ WEBHOOK_CONCURRENCY: '10', WEBHOOK_ENDPOINT_CONCURRENCY: '11' })).to.throw(
      /WEBHOOK_ENDPOINT_CONCURRENCY \(11\) cannot exceed WEBHOOK_CONCURRENCY \(10\)/,
    );
    expect(
      resolveSettings({ WEBHOOK_CONCURRENCY: '10', WEBHOOK_ENDPOINT_CONCURRENCY: '10' }).webhookEndpointConcurrency,
    ).to.equal(10);
    expect(() => resolveSettings({ WEBHOOK_BREAKER_FAILURES: '0' })).to.throw(/WEBHOOK_BREAKER_FAILURES/);
    expect(() => resolveSettings({ WEBHOOK_BREAKER_OPEN_MS: '10' })).to.throw(/WEBHOOK_BREAKER_OPEN_MS/);
    expect(() => resolveSettings({ WEBHOOK_AUTO_DISABLE_AFTER_MS: '-1' })).to.throw(/WEBHOOK_AUTO_DISABLE_AFTER_MS/);
  });

  it('default to a fifth of the slots per endpoint, 10 failures, 30 s open and 5 days to disabling', () => {
    expect(resolveSettings({})).to.include({
      webhookEndpointConcurrency: 10,
      WEBHOOK_BREAKER_FAILURES: 10,
      WEBHOOK_BREAKER_OPEN_MS: 30_000,
      WEBHOOK_AUTO_DISABLE_AFTER_MS: 5 * 86_400_000,
    });
    expect(resolveSettings({}).WEBHOOK_ALLOWED_NETWORKS).to.equal(undefined);
    expect(resolveSettings({ WEBHOOK_CONCURRENCY: '4' }).webhookEndpointConcurrency).to.equal(1);
    expect(
      resolveSettings({ WEBHOOK_CONCURRENCY: '4', WEBHOOK_ENDPOINT_CONCURRENCY: '3' }).webhookEndpointConcurrency,
    ).to.equal(3);
  });
});
