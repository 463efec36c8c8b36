import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { cpuMs, createHttpClient, peakRssMb, percentile } from './load.ts';
import { BENCH_ADMIN, basicAuth, startBenchService } from './service-process.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface WebhookBenchOptions {
  /** BullMQ on this Redis; `null` for the in-process queue. Default `REDIS_URL` or the local Redis. */
  redisUrl?: string | null;
  /** Length of the throughput phase. */
  burstMs?: number;
  /** Concurrent trigger requests in the throughput phase. */
  concurrency?: number;
  /** Events per second and length of the latency phase. */
  rate?: number;
  paceMs?: number;
  /** Hooks subscribed in the throughput phase: each event becomes this many deliveries. One in the latency phase. */
  hooks?: number;
  /** The embedded store for what Redis leaves local (`STORAGE`): documents, and without Redis the queue too. */
  storage?: 'memory' | 'sqlite';
}

/**
 * Records when each (role, hook) delivery arrived, on this process's monotonic clock, and counts each role's distinct
 * arrivals as they come, so that waiting for a set of roles costs nothing until its last delivery arrives (this
 * process shares the machine's cores with the service it measures).
 */
export async function startReceiver() {
  const arrivals = new Map<string, number>();
  const perName = new Map<string, number>();
  const waiters = new Set<(name: string) => void>();
  let lastArrival = Number.NaN;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const at = performance.now();
      const hook = req.url!.slice('/bench/'.length);
      const name = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data: { name: string } }).data.name;
      const key = `${name} ${hook}`;
      // A retried delivery counts once, at its first arrival.
      if (!arrivals.has(key)) {
        arrivals.set(key, at);
        perName.set(name, (perName.get(name) ?? 0) + 1);
        lastArrival = at;
        for (const waiter of waiters) waiter(name);
      }
      res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/bench`;
  /** Resolves once every one of `names` has `perEvent` distinct arrivals; rejects after `timeoutMs`. */
  const awaitArrivals = (names: string[], perEvent: number, timeoutMs = 60_000) =>
    new Promise<void>((resolve, reject) => {
      const missing = new Set(names.filter((name) => (perName.get(name) ?? 0) < perEvent));
      if (missing.size === 0) return resolve();
      const timer = setTimeout(() => {
        waiters.delete(waiter);
        reject(new Error(`deliveries did not all arrive within ${timeoutMs / 1000} s`));
      }, timeoutMs);
      const waiter = (name: string) => {
        if ((perName.get(name) ?? 0) < perEvent || !missing.delete(name) || missing.size > 0) return;
        clearTimeout(timer);
        waiters.delete(waiter);
        resolve();
      };
      waiters.add(waiter);
    });
  return {
    url,
    arrivals,
    awaitArrivals,
    lastArrival: () => lastArrival,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const round = (value: number, digits = 1) => Number(value.toFixed(digits));

/**
 * Webhook deliveries end to end: a management request (`POST /api/roles`) publishes Role.Created, the
 * fan-out queues a delivery per subscribed hook before the response, the in-process worker signs and POSTs
 * each to a local receiver.
 * Throughput: concurrent triggers for `burstMs` with `hooks` hooks subscribed (the trigger route alone
 * tops out near the delivery rate, so fan-out is what loads the queue), deliveries per second from the
 * first trigger to the last arrival.
 * Latency: one hook, `rate` triggers per second for `paceMs`, from each triggering response to receipt.
 */
export async function runWebhookBench(options: WebhookBenchOptions = {}): Promise<Record<string, number | string>> {
  const redisUrl =
    options.redisUrl === undefined ? (process.env.REDIS_URL ?? 'redis://127.0.0.1:6379') : options.redisUrl;
  const { burstMs = 5000, concurrency = 32, rate = 500, paceMs = 5000, hooks = 4 } = options;
  const receiver = await startReceiver();
  // The receiver is on loopback, which webhooks reach only when allowed.
  const storage = options.storage ?? 'memory';
  const env = {
    WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8',
    STORAGE: storage,
    ...(redisUrl ? { REDIS_URL: redisUrl } : {}),
  };
  // A first start fills Node's compile cache with the modules of these backends too, as any earlier start of a
  // deployment has (see the token bench): the process measured is a restart.
  await (await startBenchService(env)).stop();
  const server = await startBenchService(env);
  const http = createHttpClient(server.baseUrl, concurrency * 2);
  try {
    const token = await adminToken(http, server.baseUrl);
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
    const hookIds: string[] = [];
    for (let i = 0; i < hooks; i += 1) {
      const hook = await http.send(
        'POST',
        '/api/hooks',
        headers,
        JSON.stringify({
          name: `bench-${i}`,
          events: ['Role.Created'],
          config: { url: `${receiver.url}/${i}` },
        }),
      );
      if (hook.status !== 201) throw new Error(`hook creation failed: ${hook.status} ${hook.body}`);
      hookIds.push((JSON.parse(hook.body) as { id: string }).id);
    }
    const trigger = async (name: string) => {
      const res = await http.send('POST', '/api/roles', headers, JSON.stringify({ name }));
      if (res.status !== 201) throw new Error(`trigger failed: ${res.status} ${res.body}`);
      return performance.now();
    };
    const { awaitArrivals } = receiver;

    const warmup = Array.from({ length: 200 }, (_, i) => `warmup-${i}`);
    for (const name of warmup) await trigger(name);
    await awaitArrivals(warmup, hooks);

    // Throughput.
    const burst: string[] = [];
    const cpuBefore = cpuMs(server.pid);
    const started = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (performance.now() - started < burstMs && burst.length < 1_000_000) {
          const name = `burst-${burst.length}`;
          burst.push(name);
          await trigger(name);
        }
      }),
    );
    const triggeredIn = performance.now() - started;
    await awaitArrivals(burst, hooks);
    const deliveriesPerSecond = (burst.length * hooks) / ((receiver.lastArrival() - started) / 1000);
    // The serving process's CPU time per delivery (its trigger's share included): what machine load disturbs least.
    const cpuUsPerDelivery = ((cpuMs(server.pid) - cpuBefore) * 1000) / (burst.length * hooks);

    // Latency with one hook at a steady rate, paced by the clock so that slow responses do not lower it.
    for (const id of hookIds.slice(1)) {
      const res = await http.send('PATCH', `/api/hooks/${id}`, headers, JSON.stringify({ enabled: false }));
      if (res.status !== 200) throw new Error(`hook update failed: ${res.status} ${res.body}`);
    }
    const responses = new Map<string, number>();
    const paced: Promise<void>[] = [];
    const total = Math.round((rate * paceMs) / 1000);
    const paceStart = performance.now();
    for (let sent = 0; sent < total; ) {
      const due = Math.min(total, Math.floor(((performance.now() - paceStart) / 1000) * rate) + 1);
      for (; sent < due; sent += 1) {
        const name = `paced-${sent}`;
        paced.push(trigger(name).then((at) => void responses.set(name, at)));
      }
      await sleep(1);
    }
    await Promise.all(paced);
    const names = [...responses.keys()];
    await awaitArrivals(names, 1);
    // A webhook can arrive before its triggering response does: that counts as zero.
    const latencies = names
      .map((name) => Math.max(0, receiver.arrivals.get(`${name} 0`)! - responses.get(name)!))
      .sort((a, b) => a - b);

    return {
      queue: redisUrl ? 'bullmq' : storage,
      documents: storage,
      burstHooksPerEvent: hooks,
      burstEvents: burst.length,
      burstEventsPerSecond: Math.round(burst.length / (triggeredIn / 1000)),
      deliveriesPerSecond: Math.round(deliveriesPerSecond),
      cpuUsPerDelivery: Math.round(cpuUsPerDelivery),
      latencyEventsPerSecond: rate,
      latencyDeliveries: latencies.length,
      latencyP50Ms: round(percentile(latencies, 50)),
      latencyP99Ms: round(percentile(latencies, 99)),
      latencyMaxMs: round(latencies.at(-1) ?? Number.NaN),
      serverPeakRssMb: peakRssMb(server.pid),
    };
  } finally {
    http.close();
    await server.stop();
    await receiver.close();
  }
}

async function adminToken(http: ReturnType<typeof createHttpClient>, baseUrl: string): Promise<string> {
  const res = await http.send(
    'POST',
    '/oidc/token',
    {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basicAuth(BENCH_ADMIN.id, BENCH_ADMIN.secret),
    },
    new URLSearchParams({ grant_type: 'client_credentials', resource: `${baseUrl}/api`, scope: 'all' }).toString(),
  );
  if (res.status !== 200) throw new Error(`admin token failed: ${res.status} ${res.body}`);
  return (JSON.parse(res.body) as { access_token: string }).access_token;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const hooksArgument = process.argv.find((arg) => arg.startsWith('--hooks='));
  console.log(
    await runWebhookBench({
      ...(process.argv.includes('--embedded') ? { redisUrl: null } : {}),
      ...(process.argv.includes('--sqlite') ? { redisUrl: null, storage: 'sqlite' as const } : {}),
      ...(hooksArgument ? { hooks: Number(hooksArgument.slice('--hooks='.length)) } : {}),
    }),
  );
}
