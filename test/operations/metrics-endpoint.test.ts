import { randomInt } from 'node:crypto';
import { expect } from 'chai';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { register as globalRegistry } from 'prom-client';
import { capturingLogger } from '../support/logs.ts';
import { ADMIN, startService, type RunningService } from '../support/service.ts';
import { createApplication } from '../support/fixtures.ts';
import { eventually } from '../support/wait.ts';

const METRICS_TOKEN = 'metrics-token-0123456789abcdef';
const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';

async function scrape(running: RunningService, token: string | undefined = METRICS_TOKEN) {
  const res = await fetch(`${running.baseUrl}/metrics`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  expect(res.status).to.equal(200);
  expect(res.headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/);
  return parsePrometheusTextFormat(await res.text());
}

/** The value of one series (0 when it does not exist yet): the family's sample whose labels include `labels`. */
async function metricValue(
  running: RunningService,
  name: string,
  labels: Record<string, string> = {},
): Promise<number> {
  const family = (await scrape(running)).find((candidate) => candidate.name === name);
  const sample = family?.metrics.find((metric) =>
    Object.entries(labels).every(([key, value]) => metric.labels?.[key] === value),
  );
  return sample ? Number(sample.value) : 0;
}

async function tokenRequest(running: RunningService, form: Record<string, string>, authorization: string, ip?: string) {
  const res = await fetch(`${running.baseUrl}/oidc/token`, {
    method: 'POST',
    body: new URLSearchParams(form),
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization,
      ...(ip ? { 'x-forwarded-for': ip } : {}),
    },
  });
  await res.arrayBuffer();
  return res.status;
}

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

describe('GET /metrics', () => {
  let running: RunningService;
  let other: RunningService;

  before(async () => {
    running = await startService({ env: { METRICS_TOKEN, TRUST_PROXY: 'true', AUTH_FAILURE_RATE_LIMIT: '2' } });
    other = await startService();
  });
  after(async () => {
    await running.close();
    await other.close();
  });

  it('requires the bearer METRICS_TOKEN when one is set', async () => {
    for (const headers of [
      {},
      { authorization: 'Bearer wrong-token-0123456789abcdef' },
      { authorization: `Basic ${METRICS_TOKEN}` },
    ]) {
      const res = await fetch(`${running.baseUrl}/metrics`, { headers });
      expect(res.status).to.equal(401);
      expect(res.headers.get('www-authenticate')).to.match(/^Bearer/);
      expect(await res.text()).not.to.include('http_requests_total');
    }
    expect((await fetch(`${running.baseUrl}/metrics`, { method: 'POST' })).status).to.equal(405);
  });

  it('is open without a token, and each instance counts only its own requests', async () => {
    const healthz = { route: '/healthz', status: '200' };
    const count = async (instance: RunningService, token?: string) => {
      const family = (await scrape(instance, token)).find((candidate) => candidate.name === 'http_requests_total');
      return Number(family?.metrics.find((metric) => metric.labels?.route === '/healthz')?.value ?? 0);
    };
    const [mine, theirs] = [await metricValue(running, 'http_requests_total', healthz), await count(other)];
    for (let i = 0; i < 2; i += 1) await (await fetch(`${other.baseUrl}/healthz`)).arrayBuffer();
    expect(await count(other)).to.equal(theirs + 2);
    expect(await metricValue(running, 'http_requests_total', healthz)).to.equal(mine);
  });

  it('counts requests by method, route pattern and status, and times them in a histogram', async () => {
    const labels = { method: 'GET', route: '/api/applications/:id', status: '404' };
    const before = await metricValue(running, 'http_requests_total', labels);
    for (let i = 0; i < 3; i += 1) await (await running.request(`/api/applications/missing-${i}`)).arrayBuffer();
    expect(await metricValue(running, 'http_requests_total', labels)).to.equal(before + 3);
    const families = await scrape(running);
    expect(families.find((family) => family.name === 'http_request_duration_seconds')?.type).to.equal('HISTOGRAM');
    const routes = families
      .find((family) => family.name === 'http_requests_total')!
      .metrics.map((metric) => metric.labels?.route);
    expect(routes.filter((route) => route?.includes('missing-'))).to.deep.equal([]);
  });

  it('counts tokens issued by grant and token exchanges refused by error code', async () => {
    const issued = await metricValue(running, 'oidc_tokens_issued_total', { grant: 'client_credentials' });
    expect(await tokenRequest(running, { grant_type: 'client_credentials' }, basic(ADMIN.id, ADMIN.secret))).to.equal(
      200,
    );
    expect(await metricValue(running, 'oidc_tokens_issued_total', { grant: 'client_credentials' })).to.equal(
      issued + 1,
    );

    const app = await createApplication(running, {
      type: 'MachineToMachine',
      customClientMetadata: { allowTokenExchange: true },
    });
    const refused =
      (await metricValue(running, 'oidc_token_exchanges_refused_total', { error: 'invalid_grant' })) +
      (await metricValue(running, 'oidc_token_exchanges_refused_total', { error: 'invalid_request' }));
    const status = await tokenRequest(
      running,
      {
        grant_type: TOKEN_EXCHANGE,
        subject_token: 'sub_tk_unknown',
        subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      },
      basic(app.id, app.secret!),
    );
    expect(status).to.equal(400);
    expect(
      (await metricValue(running, 'oidc_token_exchanges_refused_total', { error: 'invalid_grant' })) +
        (await metricValue(running, 'oidc_token_exchanges_refused_total', { error: 'invalid_request' })),
    ).to.equal(refused + 1);
  });

  it('counts rate-limit hits and lockouts', async () => {
    const ip = `127.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
    const hits = await metricValue(running, 'rate_limit_hits_total', { limit: 'client_auth' });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i += 1)
      statuses.push(await tokenRequest(running, { grant_type: 'client_credentials' }, basic('nobody', 'x'), ip));
    expect(statuses).to.deep.equal([401, 401, 429]);
    expect(await metricValue(running, 'rate_limit_hits_total', { limit: 'client_auth' })).to.equal(hits + 1);

    const lockouts = await metricValue(running, 'sign_in_lockouts_total');
    await running.service.core.bus.emit('Identifier.Lockout', { type: 'username', value: 'someone' });
    await eventually(async () => (await metricValue(running, 'sign_in_lockouts_total')) === lockouts + 1);
  });

  it("reports process and runtime metrics in each instance's own registry, never the global one", async () => {
    const runtimeFamilies = {
      process_cpu_user_seconds_total: 'COUNTER',
      process_resident_memory_bytes: 'GAUGE',
      process_open_fds: 'GAUGE',
      nodejs_heap_size_used_bytes: 'GAUGE',
      nodejs_eventloop_lag_p99_seconds: 'GAUGE',
      nodejs_gc_duration_seconds: 'HISTOGRAM',
      nodejs_active_handles_total: 'GAUGE',
      nodejs_version_info: 'GAUGE',
    };
    // Both instances, scraped at once: each registers the runtime metrics in its own registry, neither clashes.
    const [mine, theirs] = await Promise.all([scrape(running), scrape(other, undefined)]);
    for (const families of [mine, theirs]) {
      const names = families.map((family) => family.name);
      expect(new Set(names).size, 'no family twice').to.equal(names.length);
      for (const [name, type] of Object.entries(runtimeFamilies)) {
        expect(families.find((family) => family.name === name)?.type, name).to.equal(type);
      }
      expect(
        Number(families.find((family) => family.name === 'process_resident_memory_bytes')!.metrics[0]!.value),
      ).to.be.greaterThan(0);
      expect(families.find((family) => family.name === 'nodejs_version_info')!.metrics[0]!.labels).to.include({
        version: process.version,
      });
    }
    // A second scrape adds nothing twice either, and the global registry a host may use stays empty.
    const again = (await scrape(running)).map((family) => family.name);
    expect(new Set(again).size).to.equal(again.length);
    expect(await globalRegistry.getMetricsAsJSON()).to.deep.equal([]);
  });
});

describe('the start-up warning about an open /metrics', () => {
  for (const [label, env, expected] of [
    ['without METRICS_TOKEN', {}, 1],
    ['with METRICS_TOKEN', { METRICS_TOKEN }, 0],
  ] as const) {
    it(`is logged ${expected ? 'once' : 'never'} ${label}`, async () => {
      const logs = capturingLogger();
      const running = await startService({ env, logger: logs.logger });
      try {
        const warnings = logs.lines.filter((line) => line.level === 40 && line.msg.includes('/metrics'));
        expect(warnings.map((line) => line.msg)).to.deep.equal(
          expected
            ? [
                'GET /metrics is open to anyone who reaches this service: set METRICS_TOKEN, or keep it off the public network',
              ]
            : [],
        );
        expect((await fetch(`${running.baseUrl}/metrics`)).status).to.equal(expected ? 200 : 401);
      } finally {
        await running.close();
      }
    });
  }
});
