import { expect } from 'chai';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { startService, type RunningService } from '../support/service.ts';
import { capturingLogger } from '../support/logs.ts';
import { eventually } from '../support/wait.ts';
import { Receiver } from '../support/webhooks/receiver.ts';

async function families(running: RunningService) {
  const res = await fetch(`${running.baseUrl}/metrics`);
  expect(res.status).to.equal(200);
  return parsePrometheusTextFormat(await res.text());
}

async function metricValue(
  running: RunningService,
  name: string,
  labels: Record<string, string> = {},
): Promise<number | undefined> {
  const family = (await families(running)).find((candidate) => candidate.name === name);
  const sample = family?.metrics.find((metric) =>
    Object.entries(labels).every(([key, value]) => metric.labels?.[key] === value),
  );
  return sample?.value === undefined ? undefined : Number(sample.value);
}

describe('metrics of webhook delivery and the customizer sandbox', () => {
  let running: RunningService;
  let receiver: Receiver;
  let captured: ReturnType<typeof capturingLogger>;

  before(async () => {
    receiver = await Receiver.start();
    captured = capturingLogger();
    running = await startService({
      logger: captured.logger,
      env: { JWT_CUSTOMIZER_TIMEOUT_MS: '100', WEBHOOK_RETRY_DELAYS_MS: '50' },
    });
  });
  after(async () => {
    await running.close();
    await receiver.close();
  });

  it('counts and times delivery attempts by outcome, reports the queue depth, and logs each attempt without its URL', async () => {
    receiver.script('/failing', () => ({ status: 500 }));
    for (const path of ['/ok?token=consumer-secret', '/failing']) {
      const res = await running.request('/api/hooks', {
        method: 'POST',
        json: { name: 'metrics', events: ['User.Created'], config: { url: receiver.url(path) } },
      });
      expect(res.status, await res.text()).to.equal(201);
    }
    expect(await metricValue(running, 'webhook_queue_depth')).to.equal(0);
    const created = await running.request('/api/users', { method: 'POST', json: { username: 'metrics_user' } });
    expect(created.status).to.equal(201);
    await eventually(() => receiver.requests('/failing').length >= 2, { what: 'a failed attempt and its retry' });
    await eventually(
      async () => (await metricValue(running, 'webhook_delivery_attempts_total', { outcome: 'succeeded' })) === 1,
    );
    await eventually(
      async () => ((await metricValue(running, 'webhook_delivery_attempts_total', { outcome: 'retry' })) ?? 0) >= 1,
    );
    const histogram = (await families(running)).find(
      (family) => family.name === 'webhook_delivery_attempt_duration_seconds',
    );
    expect(histogram?.type).to.equal('HISTOGRAM');

    const attempts = captured.lines.filter((line) => line.msg === 'webhook delivery attempt');
    expect(attempts.map((line) => line.outcome)).to.include.members(['succeeded', 'retry']);
    expect(attempts[0]).to.include.keys('hookId', 'deliveryId', 'event', 'attempt', 'responseStatus', 'latencyMs');
    expect(captured.raw.join('\n')).not.to.include('consumer-secret');
    // Both deliveries are finished (the failing one after its single retry): nothing is left in the queue.
    await eventually(
      async () =>
        (await metricValue(running, 'webhook_queue_depth')) === 0 && receiver.requests('/failing').length === 2,
    );
  });

  it('counts customizer scripts stopped at their time limit', async () => {
    const before = (await metricValue(running, 'jwt_customizer_timeouts_total', { pool: 'test' })) ?? 0;
    const res = await running.request('/api/configs/jwt-customizer/test', {
      method: 'POST',
      json: { script: 'const getCustomJwtClaims = () => { for (;;) {} };', token: {}, context: {} },
    });
    expect(res.status).to.equal(422);
    expect(((await res.json()) as { data: { reason: string } }).data.reason).to.equal('timeout');
    expect(await metricValue(running, 'jwt_customizer_timeouts_total', { pool: 'test' })).to.equal(before + 1);
  });
});
