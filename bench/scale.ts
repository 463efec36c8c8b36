import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { cpuMs, createHttpClient, measureLatencies, median, peakRssMb, percentile, rssMb } from './load.ts';
import { SCALE, seeded, type ScaleCounts } from './seed.ts';
import { startBenchService } from './service-process.ts';
import { passwordSignIn, SIGN_IN_REDIRECT } from './sign-in.ts';
import { prepareService } from './tokens.ts';
import { startReceiver } from './webhooks.ts';

export type ScaleStorage = 'sqlite' | 'memory';

export interface ScaleBenchOptions {
  counts?: ScaleCounts;
  storages?: ScaleStorage[];
  /** Interleaved rounds: each workload runs once per round on each service. */
  rounds?: number;
  phaseMs?: number;
  /** Requests in flight for the reads and the token workloads. */
  concurrency?: number;
  /** Sign-ins in flight: each one hashes a password, which takes most of a core. */
  signInConcurrency?: number;
  /** Seeding stops with an error past this. */
  seedDeadlineMs?: number;
}

type Http = ReturnType<typeof createHttpClient>;
type Prepared = Awaited<ReturnType<typeof prepareService>>;

/** The password of the bench's sign-in users; the service's own KDF hashes it (scrypt, lib/users/passwords.ts). */
const SIGN_IN_PASSWORD = 'Scale-Bench-Pass-2026';
/** The users searched for: a substring of a few emails (user4711@…, user47110@… to user47119@…). */
const SEARCH = '%ser4711%';
const PAGE_SIZE = 20;
/** Webhook fan-out: hooks per event, trigger concurrency and length of a burst. */
const FAN_OUT_HOOKS = 4;
const FAN_OUT_CONCURRENCY = 32;
const FAN_OUT_BURST_MS = 3000;
const SETTLE_MS = 1000;

interface Fixtures {
  prepared: Prepared;
  http: Http;
  reads: Record<ReadName, string>;
  signIn: { app: { id: string; secret: string }; user: { username: string; password: string } };
}

const READS = ['usersSearch', 'usersDeepPage', 'organizationUsers', 'hookRecentLogs', 'impersonationLogs'] as const;
type ReadName = (typeof READS)[number];
const WORKLOADS = [...READS, 'clientCredentials', 'impersonation', 'signIn'] as const;
type WorkloadName = (typeof WORKLOADS)[number];

/** The paths the listed reads ask for: on the seeded store at its documents, on the empty one at the bench's own. */
function readPaths(
  target: { organizationId: string; hookId: string; auditedUserId: string },
  counts: ScaleCounts,
): Record<ReadName, string> {
  // Four fifths into the users: an offset a store that scans to its page pays for.
  const deepPage = Math.max(1, Math.floor((counts.users * 0.8) / PAGE_SIZE));
  return {
    usersSearch: `/api/users?search=${encodeURIComponent(SEARCH)}&page=1&page_size=${PAGE_SIZE}`,
    usersDeepPage: `/api/users?page=${deepPage}&page_size=${PAGE_SIZE}`,
    organizationUsers: `/api/organizations/${target.organizationId}/users?page=1&page_size=${PAGE_SIZE}`,
    hookRecentLogs: `/api/hooks/${target.hookId}/recent-logs?page=1&page_size=${PAGE_SIZE}`,
    impersonationLogs: `/api/impersonation-logs?userId=${encodeURIComponent(target.auditedUserId)}&page=1&page_size=${PAGE_SIZE}`,
  };
}

/**
 * What both services get through the API: the token workloads' resource, roles, user and applications, a sign-in
 * application and a user with a password; on the empty store also an organization with five members, a hook without
 * deliveries and a user without audit records, which the seeded store has among its own documents.
 */
async function prepareFixtures(
  baseUrl: string,
  http: Http,
  label: string,
  isSeeded: boolean,
  counts: ScaleCounts,
): Promise<Fixtures> {
  const prepared = await prepareService(baseUrl, http);
  const { api } = prepared;
  const app = await api(
    'POST',
    '/api/applications',
    {
      name: `bench-sign-in-${label}`,
      type: 'Traditional',
      oidcClientMetadata: { redirectUris: [SIGN_IN_REDIRECT] },
    },
    201,
  );
  const username = `signin_${label}`;
  await api('POST', '/api/users', { username, password: SIGN_IN_PASSWORD }, 201);
  let target: { organizationId: string; hookId: string; auditedUserId: string };
  if (isSeeded) {
    // Somewhere in the middle of what was seeded, not among its first documents.
    target = {
      organizationId: seeded.organizationId(Math.floor(counts.organizations * 0.1234)),
      hookId: seeded.hookId(0),
      auditedUserId: seeded.userId(Math.floor(counts.users * 0.4321)),
    };
  } else {
    const organization = await api('POST', '/api/organizations', { name: `bench-${label}` }, 201);
    const members = [];
    for (let i = 0; i < 5; i += 1)
      members.push((await api('POST', '/api/users', { username: `member_${label}_${i}` }, 201)).id);
    const added = await http.send(
      'POST',
      `/api/organizations/${organization.id}/users`,
      prepared.adminHeaders,
      JSON.stringify({ userIds: members }),
    );
    if (added.status >= 300) throw new Error(`adding members failed with ${added.status}: ${added.body}`);
    const hook = await api(
      'POST',
      '/api/hooks',
      {
        name: `bench-history-${label}`,
        events: ['User.Deleted'],
        config: { url: 'https://hooks.example.com/history' },
        enabled: false,
      },
      201,
    );
    const audited = await api('POST', '/api/users', { username: `audited_${label}` }, 201);
    target = { organizationId: organization.id, hookId: hook.id, auditedUserId: audited.id };
  }
  return {
    prepared,
    http,
    reads: readPaths(target, counts),
    signIn: { app: { id: app.id, secret: app.secret! }, user: { username, password: SIGN_IN_PASSWORD } },
  };
}

/** One request of a listed read; throws unless it answers 200 with `Total-Number`. */
async function read(fixtures: Fixtures, path: string): Promise<void> {
  const res = await fixtures.http.send('GET', path, fixtures.prepared.adminHeaders);
  if (res.status !== 200 || res.headers['total-number'] === undefined)
    throw new Error(`${path} answered ${res.status}: ${res.body.slice(0, 200)}`);
}

interface Served {
  label: 'empty' | 'seeded';
  pid: number;
  baseUrl: string;
  fixtures: Fixtures;
}

interface Figures {
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  cpuUs: number;
  errors: number;
}

/**
 * The seeded service against the empty one: the median over the rounds of its rate divided by the empty one's in the
 * same round, and of the empty one's CPU time per iteration divided by its own (higher is cheaper, 1 is the same).
 */
function ratios(seededSample: { rates: number[]; cpuUs: number[] }, emptySample: { rates: number[]; cpuUs: number[] }) {
  const of = (values: number[], bases: number[]) =>
    Number(median(values.map((value, i) => (bases[i]! > 0 ? value / bases[i]! : 0))).toFixed(2));
  return { rateRatio: of(seededSample.rates, emptySample.rates), cpuRatio: of(emptySample.cpuUs, seededSample.cpuUs) };
}

/** Webhook deliveries per second end to end with `FAN_OUT_HOOKS` hooks per event (see bench/webhooks.ts). */
async function fanOut(
  served: Served,
  receiver: Awaited<ReturnType<typeof startReceiver>>,
  run: number,
): Promise<number> {
  const { api } = served.fixtures.prepared;
  const tag = `${served.label}-${run}`;
  const hookIds: string[] = [];
  for (let i = 0; i < FAN_OUT_HOOKS; i += 1) {
    hookIds.push(
      (
        await api(
          'POST',
          '/api/hooks',
          {
            name: `bench-fan-out-${tag}-${i}`,
            events: ['Role.Created'],
            config: { url: `${receiver.url}/${tag}-${i}` },
          },
          201,
        )
      ).id,
    );
  }
  const names: string[] = [];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: FAN_OUT_CONCURRENCY }, async () => {
      while (performance.now() - started < FAN_OUT_BURST_MS && names.length < 100_000) {
        const name = `fan-out-${tag}-${names.length}`;
        names.push(name);
        await api('POST', '/api/roles', { name }, 201);
      }
    }),
  );
  await receiver.awaitArrivals(names, FAN_OUT_HOOKS);
  const rate = (names.length * FAN_OUT_HOOKS) / ((receiver.lastArrival() - started) / 1000);
  // The next burst's hooks only: these stay subscribed to nothing the bench triggers again.
  for (const id of hookIds) await api('PATCH', `/api/hooks/${id}`, { enabled: false }, 200);
  return Math.round(rate);
}

/**
 * Starts the seeded service. On SQLite, a first process writes the data into the file and stops; the service then
 * starts on that file as a restart does (the figure of start-up to ready). In memory the data exists only in the
 * process that seeds it: its start-up includes the seeding.
 */
async function startSeeded(
  storage: ScaleStorage,
  env: Record<string, string>,
  counts: ScaleCounts,
  deadlineMs: number,
) {
  const seed = { BENCH_SEED: JSON.stringify(counts), BENCH_SEED_DEADLINE_MS: String(deadlineMs) };
  if (storage === 'memory') {
    const spawned = performance.now();
    const service = await startBenchService({ ...env, ...seed });
    return {
      service,
      dataDir: undefined,
      readySeconds: (performance.now() - spawned) / 1000,
      seed: service.seed!,
      fileMb: undefined,
    };
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'identity-bench-scale-'));
  const seeding = await startBenchService({ ...env, ...seed, DATA_DIR: dataDir });
  const summary = seeding.seed!;
  await seeding.stop();
  const spawned = performance.now();
  const service = await startBenchService({ ...env, DATA_DIR: dataDir });
  const readySeconds = (performance.now() - spawned) / 1000;
  const fileMb = Math.round(statSync(join(dataDir, 'identity.sqlite')).size / 1e6);
  return { service, dataDir, readySeconds, seed: summary, fileMb };
}

/** Every figure of one store, empty and seeded, measured in the same rounds. */
async function measureStorage(storage: ScaleStorage, options: Required<ScaleBenchOptions>) {
  const { counts, rounds, phaseMs, concurrency, signInConcurrency } = options;
  const env = { STORAGE: storage, SUBJECT_TOKEN_RATE_LIMIT: '0', WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8' };
  const receiver = await startReceiver();
  const started: { stop(): Promise<void> }[] = [];
  const clients: Http[] = [];
  let dataDir: string | undefined;
  try {
    const spawned = performance.now();
    const empty = await startBenchService(env);
    const emptyReadySeconds = (performance.now() - spawned) / 1000;
    started.push(empty);
    const big = await startSeeded(storage, env, counts, options.seedDeadlineMs);
    started.push(big.service);
    dataDir = big.dataDir;
    await sleep(SETTLE_MS);
    const idle = { empty: rssMb(empty.pid), seeded: rssMb(big.service.pid) };

    const serve = async (label: Served['label'], service: { pid: number; baseUrl: string }): Promise<Served> => {
      const http = createHttpClient(service.baseUrl, concurrency * 2);
      clients.push(http);
      return {
        label,
        pid: service.pid,
        baseUrl: service.baseUrl,
        fixtures: await prepareFixtures(service.baseUrl, http, label, label === 'seeded', counts),
      };
    };
    const services = [await serve('empty', empty), await serve('seeded', big.service)];

    const iteration = (name: WorkloadName, served: Served, passwordMs: number[]): (() => Promise<void>) => {
      const { fixtures } = served;
      if (name === 'clientCredentials') return fixtures.prepared.clientCredentials;
      if (name === 'impersonation') return fixtures.prepared.exchange;
      if (name === 'signIn')
        return () => passwordSignIn(fixtures.http, fixtures.signIn.app, fixtures.signIn.user, passwordMs);
      const path = fixtures.reads[name];
      return () => read(fixtures, path);
    };
    type Samples = { rates: number[]; cpuUs: number[]; latencies: number[]; errors: number; passwordMs: number[] };
    const samples = new Map<string, Samples>();
    const key = (name: WorkloadName, served: Served) => `${name} ${served.label}`;
    for (const name of WORKLOADS) {
      for (const served of services)
        samples.set(key(name, served), { rates: [], cpuUs: [], latencies: [], errors: 0, passwordMs: [] });
    }
    const phase = async (name: WorkloadName, served: Served, durationMs: number, measured: boolean) => {
      const sample = samples.get(key(name, served))!;
      const latencies: number[] = [];
      const passwordMs: number[] = [];
      const cpuBefore = cpuMs(served.pid);
      const result = await measureLatencies(
        iteration(name, served, passwordMs),
        {
          concurrency: name === 'signIn' ? signInConcurrency : concurrency,
          durationMs,
          maxIterations: 1_000_000,
        },
        latencies,
      );
      if (!measured) return;
      sample.rates.push(result.perSecond);
      sample.cpuUs.push(((cpuMs(served.pid) - cpuBefore) * 1000) / Math.max(1, result.iterations));
      sample.latencies.push(...latencies);
      sample.passwordMs.push(...passwordMs);
      sample.errors += result.errors;
    };
    for (const name of WORKLOADS) for (const served of services) await phase(name, served, 1000, false);
    for (let round = 0; round < rounds; round += 1) {
      for (let i = 0; i < WORKLOADS.length; i += 1) {
        const name = WORKLOADS[(round + i) % WORKLOADS.length]!;
        // Each round the other service goes first.
        for (const served of round % 2 ? [...services].reverse() : services) await phase(name, served, phaseMs, true);
      }
    }
    const fanOutRates: Record<Served['label'], number[]> = { empty: [], seeded: [] };
    for (let run = 0; run < 2; run += 1) {
      for (const served of run % 2 ? [...services].reverse() : services)
        fanOutRates[served.label].push(await fanOut(served, receiver, run));
    }

    const figures = (name: WorkloadName, served: Served): Figures => {
      const sample = samples.get(key(name, served))!;
      const sorted = sample.latencies.sort((a, b) => a - b);
      return {
        perSecond: Math.round(median(sample.rates)),
        p50Ms: Number(percentile(sorted, 50).toFixed(1)),
        p99Ms: Number(percentile(sorted, 99).toFixed(1)),
        cpuUs: Math.round(median(sample.cpuUs)),
        errors: sample.errors,
      };
    };
    const [emptyService, seededService] = services as [Served, Served];
    const workloads = Object.fromEntries(
      WORKLOADS.map((name) => [
        name,
        {
          empty: figures(name, emptyService),
          seeded: figures(name, seededService),
          ...ratios(samples.get(key(name, seededService))!, samples.get(key(name, emptyService))!),
        },
      ]),
    ) as Record<WorkloadName, { empty: Figures; seeded: Figures; rateRatio: number; cpuRatio: number }>;
    const passwordMs = (served: Served) => {
      const sorted = samples.get(key('signIn', served))!.passwordMs.sort((a, b) => a - b);
      return { p50: Number(percentile(sorted, 50).toFixed(1)), p99: Number(percentile(sorted, 99).toFixed(1)) };
    };
    return {
      storage,
      seed: big.seed,
      fileMb: big.fileMb,
      readySeconds: { empty: Number(emptyReadySeconds.toFixed(2)), seeded: Number(big.readySeconds.toFixed(2)) },
      rssMb: {
        idle,
        peak: { empty: peakRssMb(empty.pid), seeded: peakRssMb(big.service.pid) },
      },
      workloads,
      passwordVerificationMs: { empty: passwordMs(emptyService), seeded: passwordMs(seededService) },
      webhookFanOut: { empty: median(fanOutRates.empty), seeded: median(fanOutRates.seeded), runs: fanOutRates },
    };
  } finally {
    for (const http of clients) http.close();
    await Promise.all(started.map((child) => child.stop()));
    await receiver.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }
}

export type ScaleStorageResult = Awaited<ReturnType<typeof measureStorage>>;

/**
 * `npm run bench -- --scale`: the service on a store holding a tenant's worth of data (bench/seed.ts) beside the same
 * service on an empty store, on the default SQLite store and on the in-memory one: the listed reads at `concurrency`
 * requests in flight (p50, p99, rate), client credentials, impersonation, password sign-in through the Experience
 * API, webhook fan-out, start-up to ready and RSS. Workloads alternate in rounds between the two services, so both
 * see the same machine load.
 */
export async function runScaleBench(options: ScaleBenchOptions = {}) {
  const settings: Required<ScaleBenchOptions> = {
    counts: SCALE,
    storages: ['sqlite', 'memory'],
    rounds: 3,
    phaseMs: 2000,
    concurrency: 16,
    signInConcurrency: 1,
    seedDeadlineMs: 240_000,
    ...options,
  };
  // A first start fills Node's compile cache, as any earlier start of a deployment has (see the token bench).
  await (await startBenchService({ STORAGE: 'memory' })).stop();
  const results: ScaleStorageResult[] = [];
  for (const storage of settings.storages) {
    console.log(
      `scale bench on the ${storage} store: seeding ${settings.counts.users.toLocaleString('en-US')} users and the rest …`,
    );
    results.push(await measureStorage(storage, settings));
    console.log(JSON.stringify(results.at(-1)));
  }
  return { settings: { ...settings, storages: settings.storages }, results };
}

export type ScaleBenchResult = Awaited<ReturnType<typeof runScaleBench>>;

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(JSON.stringify(await runScaleBench(), null, 2));
