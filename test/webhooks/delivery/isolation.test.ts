import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import type { RunningService } from '../../support/service.ts';
import { BACKENDS, createHook, getJson, startHookService } from '../../support/webhooks/hooks.ts';
import { Receiver, eventually } from '../../support/webhooks/receiver.ts';

const TIMEOUT_MS = 1000;
const CONCURRENCY = 10;
/** The default share of one endpoint: a fifth of WEBHOOK_CONCURRENCY. */
const ENDPOINT_SHARE = 2;

/** Accepts connections and requests and never answers; notes when each request arrived. */
async function deadEndpoint(): Promise<{ url: string; arrivals: number[]; close: () => Promise<void> }> {
  const arrivals: number[] = [];
  const server: Server = createServer((req) => {
    arrivals.push(performance.now());
    req.resume();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/dead`,
    arrivals,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function total(running: RunningService, path: string): Promise<number> {
  const response = await running.request(path);
  expect(response.status).to.equal(200);
  return Number(response.headers.get('total-number'));
}

/** Role.Created events through the management API, a few at a time. */
async function createRoles(running: RunningService, prefix: string, count: number): Promise<void> {
  for (let start = 0; start < count; start += 5) {
    await Promise.all(
      Array.from({ length: Math.min(5, count - start) }, async (_, i) => {
        const response = await running.request('/api/roles', {
          method: 'POST',
          json: { name: `${prefix}-${start + i}` },
        });
        expect(response.status).to.equal(201);
      }),
    );
  }
}

for (const backend of BACKENDS) {
  describe(`webhook endpoint isolation (${backend})`, function () {
    this.timeout(60_000);
    let healthy: Receiver;

    before(async () => {
      healthy = await Receiver.start();
    });
    after(() => healthy.close());

    describe('a dead endpoint beside a healthy one', () => {
      const EVENTS = 30;
      let running: RunningService;
      let dead: Awaited<ReturnType<typeof deadEndpoint>>;

      before(async () => {
        dead = await deadEndpoint();
        running = await startHookService(backend, {
          WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
          WEBHOOK_CONCURRENCY: String(CONCURRENCY),
          // Timed-out deliveries wait long before their retry, and the breaker stays out of this case.
          WEBHOOK_RETRY_DELAYS_MS: '60000',
          WEBHOOK_BREAKER_FAILURES: '1000',
        });
      });
      after(async () => {
        await running.close();
        await dead.close();
      });

      it('holds at most its share of slots, while every healthy delivery arrives within one timeout', async () => {
        // The dead hook first, so each event queues its dead delivery ahead of the healthy one.
        const deadHook = await createHook(running, { events: ['Role.Created'], config: { url: dead.url } });
        await createHook(running, { events: ['Role.Created'], config: { url: healthy.url('/healthy') } });
        await createRoles(running, 'isolation', EVENTS);

        await eventually(() => healthy.requests('/healthy').length === EVENTS, {
          timeoutMs: 30_000,
          what: 'every healthy delivery',
        });
        // Still outstanding: none of the dead endpoint's deliveries has finished, let alone succeeded.
        expect(await total(running, `/api/hooks/${deadHook.id}/deliveries?status=pending`)).to.equal(EVENTS);
        // Each dead request holds its slot for a whole timeout, so with a share of two, any three of them
        // arrive at least about one timeout apart.
        expect(dead.arrivals.length).to.be.at.least(ENDPOINT_SHARE);
        for (let i = 0; i + ENDPOINT_SHARE < dead.arrivals.length; i += 1) {
          expect(
            dead.arrivals[i + ENDPOINT_SHARE]! - dead.arrivals[i]!,
            `requests ${i} to ${i + ENDPOINT_SHARE}, ms`,
          ).to.be.at.least(TIMEOUT_MS * 0.9);
        }
        for (const request of healthy.requests('/healthy')) {
          const waited = request.receivedAt - Date.parse(JSON.parse(request.body).createdAt);
          expect(waited, 'trigger to receipt, ms').to.be.below(TIMEOUT_MS);
        }
      });
    });

    describe('the circuit breaker', () => {
      const EVENTS = 6;
      const OPEN_MS = 1000;
      let running: RunningService;

      before(async () => {
        running = await startHookService(backend, {
          WEBHOOK_CONCURRENCY: String(CONCURRENCY),
          WEBHOOK_ENDPOINT_CONCURRENCY: '1',
          WEBHOOK_BREAKER_FAILURES: '3',
          WEBHOOK_BREAKER_OPEN_MS: String(OPEN_MS),
          WEBHOOK_RETRY_DELAYS_MS: Array.from({ length: 10 }, () => '50').join(','),
        });
      });
      after(() => running.close());

      it('sends nothing while open, defers without using attempts, and delivers once a probe gets an answer', async () => {
        let failing = true;
        healthy.script('/flaky', () => (failing ? { status: 503, body: 'down' } : { status: 200 }));
        const hook = await createHook(running, { events: ['Role.Created'], config: { url: healthy.url('/flaky') } });
        await createRoles(running, 'breaker', EVENTS);
        await eventually(() => healthy.requests('/flaky').length >= 3, { what: 'three failures' });
        failing = false;

        await eventually(
          async () => (await total(running, `/api/hooks/${hook.id}/deliveries?status=succeeded`)) === EVENTS,
          {
            timeoutMs: 20_000,
            what: 'every delivery to succeed',
          },
        );
        const arrivals = healthy.requests('/flaky').map((request) => request.receivedAt);
        // One attempt at a time: the third failure opens the circuit before another can start.
        expect(arrivals.length - EVENTS, 'failed requests').to.equal(3);
        const gaps = arrivals.slice(1).map((at, i) => at - arrivals[i]!);
        expect(Math.max(...gaps), 'the longest silence, ms').to.be.at.least(OPEN_MS - 100);
        const deliveries = await getJson<any[]>(running, `/api/hooks/${hook.id}/deliveries?page_size=100`);
        const attempts = deliveries.reduce((sum, delivery) => sum + delivery.attempts, 0);
        expect(attempts, 'attempts recorded = requests sent').to.equal(arrivals.length);
      });
    });
  });
}
