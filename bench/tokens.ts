import { setTimeout as sleep } from 'node:timers/promises';
import { cpuMs, createHttpClient, measure, median, peakRssMb, rssMb } from './load.ts';
import { BENCH_ADMIN, basicAuth, startBaseline, startBenchService } from './service-process.ts';

const RESOURCE = 'https://bench.example.com';
const GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
const AT = 'urn:ietf:params:oauth:token-type:access_token';
const SCRIPT_PATH = '/api/configs/jwt-customizer/access-token';
/** The trivial stored customizer script: one constant claim. */
const TRIVIAL_SCRIPT = 'const getCustomJwtClaims = async () => ({ tier: "gold" });';
/** How long a freshly started process is left alone before its idle RSS is read. */
const SETTLE_MS = 1000;

type Http = ReturnType<typeof createHttpClient>;

const form = (params: Record<string, string>) => new URLSearchParams(params).toString();
const tokenHeaders = (authorization: string) => ({
  'content-type': 'application/x-www-form-urlencoded',
  authorization,
});

async function json<T>(promise: Promise<{ status: number; body: string }>, expected: number): Promise<T> {
  const res = await promise;
  if (res.status !== expected) throw new Error(`setup failed with ${res.status}: ${res.body}`);
  return JSON.parse(res.body) as T;
}

async function clientCredentials(http: Http, id: string, secret: string): Promise<void> {
  const res = await http.send(
    'POST',
    '/oidc/token',
    tokenHeaders(basicAuth(id, secret)),
    form({ grant_type: 'client_credentials', resource: RESOURCE, scope: 'read' }),
  );
  if (res.status !== 200) throw new Error(res.body);
}

/**
 * Creates on a bench service what the token workloads use: a resource with one scope, a machine-to-machine
 * application holding it, a user holding it and an application allowed to exchange subject tokens.
 */
export async function prepareService(baseUrl: string, http: Http) {
  const admin = await json<{ access_token: string }>(
    http.send(
      'POST',
      '/oidc/token',
      tokenHeaders(basicAuth(BENCH_ADMIN.id, BENCH_ADMIN.secret)),
      form({ grant_type: 'client_credentials', resource: `${baseUrl}/api`, scope: 'all' }),
    ),
    200,
  );
  const adminHeaders = { 'content-type': 'application/json', authorization: `Bearer ${admin.access_token}` };
  const api = (method: string, path: string, body: unknown, status: number) =>
    json<{ id: string; secret?: string }>(http.send(method, path, adminHeaders, JSON.stringify(body)), status);
  const resource = await api('POST', '/api/resources', { name: 'bench', indicator: RESOURCE }, 201);
  const read = await api('POST', `/api/resources/${resource.id}/scopes`, { name: 'read' }, 201);
  const userRole = await api('POST', '/api/roles', { name: 'bench-user', type: 'User', scopeIds: [read.id] }, 201);
  const m2mRole = await api(
    'POST',
    '/api/roles',
    { name: 'bench-m2m', type: 'MachineToMachine', scopeIds: [read.id] },
    201,
  );
  const user = await api('POST', '/api/users', { username: 'bench_user' }, 201);
  await api('POST', `/api/users/${user.id}/roles`, { roleIds: [userRole.id] }, 201);
  const m2m = await api('POST', '/api/applications', { name: 'bench-m2m', type: 'MachineToMachine' }, 201);
  await api('POST', `/api/applications/${m2m.id}/roles`, { roleIds: [m2mRole.id] }, 201);
  const app = await api(
    'POST',
    '/api/applications',
    {
      name: 'bench-exchange',
      type: 'Traditional',
      customClientMetadata: { allowTokenExchange: true },
    },
    201,
  );

  return {
    /** A management API call as the bench admin, expecting `status`; answers the JSON body. */
    api,
    /** The bench admin's headers for the management API. */
    adminHeaders,
    clientCredentials: () => clientCredentials(http, m2m.id, m2m.secret!),
    /** The whole impersonation round trip: create a subject token, exchange it (two requests). */
    async exchange() {
      const created = await json<{ subjectToken: string }>(
        http.send('POST', '/api/subject-tokens', adminHeaders, JSON.stringify({ userId: user.id })),
        201,
      );
      const res = await http.send(
        'POST',
        '/oidc/token',
        tokenHeaders(basicAuth(app.id, app.secret!)),
        form({
          grant_type: GRANT,
          subject_token: created.subjectToken,
          subject_token_type: AT,
          resource: RESOURCE,
          scope: 'read',
        }),
      );
      if (res.status !== 200) throw new Error(res.body);
    },
    async storeScript(script: string | null) {
      const res =
        script === null
          ? await http.send('DELETE', SCRIPT_PATH, adminHeaders)
          : await http.send('PUT', SCRIPT_PATH, adminHeaders, JSON.stringify({ script }));
      if (res.status >= 300) throw new Error(`customizer script update failed with ${res.status}: ${res.body}`);
    },
  };
}

interface Workload {
  name: string;
  /** The process that serves it, whose CPU time is counted. */
  pid: number;
  iteration: () => Promise<void>;
  before?: () => Promise<void>;
  after?: () => Promise<void>;
}

export interface TokenBenchOptions {
  /** Interleaved rounds: each workload runs once per round; figures are the medians over the rounds. */
  rounds?: number;
  phaseMs?: number;
  concurrency?: number;
  /** A second service with subject tokens in this Redis joins the rounds (its exchange rate). */
  redisUrl?: string;
  /** Runs only the workloads of these names (to profile one request type with BENCH_PROFILE). */
  only?: string[];
}

/**
 * Client-credentials grants per second of a plain node-oidc-provider (the baseline) and of the service, the
 * impersonation round trip, and client credentials with a trivial stored customizer script. The processes run
 * side by side and the workloads alternate, round after round, so every figure sees the same machine load;
 * each figure is the median of its rounds. Idle RSS is read before any load, peak RSS after the last round.
 */
export async function runTokenBench(options: TokenBenchOptions = {}) {
  const { rounds = 6, phaseMs = 2000, concurrency = 16 } = options;
  const bounded = { concurrency, maxIterations: 1_000_000 };
  const started: { stop(): Promise<void> }[] = [];
  const clients: Http[] = [];
  try {
    // A first start fills Node's compile cache (NODE_COMPILE_CACHE of `npm start`), as any earlier start of a
    // deployment has: the idle RSS below is that of a restart, not of the very first start on a machine.
    await (await startBenchService({})).stop();
    const baseline = await startBaseline();
    started.push(baseline);
    // One management client creates thousands of subject tokens a second here, far past the per-client default. The
    // in-memory store is what the targets against the baseline are measured on; the SQLite store (the default, with
    // SQLITE_SYNCHRONOUS=FULL) is measured against it.
    const service = await startBenchService({ SUBJECT_TOKEN_RATE_LIMIT: '0', STORAGE: 'memory' });
    started.push(service);
    const sqliteService = await startBenchService({
      SUBJECT_TOKEN_RATE_LIMIT: '0',
      STORAGE: 'sqlite',
      SQLITE_SYNCHRONOUS: 'FULL',
    });
    started.push(sqliteService);
    const redisService = options.redisUrl
      ? await startBenchService({ SUBJECT_TOKEN_RATE_LIMIT: '0', REDIS_URL: options.redisUrl, STORAGE: 'memory' })
      : undefined;
    if (redisService) started.push(redisService);
    await sleep(SETTLE_MS);
    const idle = { baseline: rssMb(baseline.pid), service: rssMb(service.pid) };

    const client = (baseUrl: string) => {
      const http = createHttpClient(baseUrl, concurrency * 2);
      clients.push(http);
      return http;
    };
    const baselineHttp = client(baseline.baseUrl);
    const embedded = await prepareService(service.baseUrl, client(service.baseUrl));
    const onSqlite = await prepareService(sqliteService.baseUrl, client(sqliteService.baseUrl));
    const onRedis = redisService ? await prepareService(redisService.baseUrl, client(redisService.baseUrl)) : undefined;

    const all: Workload[] = [
      {
        name: 'baselineClientCredentials',
        pid: baseline.pid,
        iteration: () => clientCredentials(baselineHttp, baseline.clientId, baseline.clientSecret),
      },
      { name: 'clientCredentials', pid: service.pid, iteration: embedded.clientCredentials },
      { name: 'impersonation', pid: service.pid, iteration: embedded.exchange },
      {
        name: 'clientCredentialsWithScript',
        pid: service.pid,
        iteration: embedded.clientCredentials,
        before: () => embedded.storeScript(TRIVIAL_SCRIPT),
        after: () => embedded.storeScript(null),
      },
      ...(onRedis ? [{ name: 'impersonationRedis', pid: redisService!.pid, iteration: onRedis.exchange }] : []),
      { name: 'clientCredentialsSqlite', pid: sqliteService.pid, iteration: onSqlite.clientCredentials },
      { name: 'impersonationSqlite', pid: sqliteService.pid, iteration: onSqlite.exchange },
    ];
    const workloads = options.only ? all.filter(({ name }) => options.only!.includes(name)) : all;
    const rates = new Map<string, number[]>(workloads.map(({ name }) => [name, []]));
    const cpu = new Map<string, number[]>(workloads.map(({ name }) => [name, []]));
    const errors: Record<string, number> = Object.fromEntries(workloads.map(({ name }) => [name, 0]));
    const run = async (workload: Workload, durationMs: number) => {
      await workload.before?.();
      try {
        const cpuBefore = cpuMs(workload.pid);
        const result = await measure(workload.iteration, { ...bounded, durationMs });
        errors[workload.name]! += result.errors;
        return {
          perSecond: result.perSecond,
          cpuUs: ((cpuMs(workload.pid) - cpuBefore) * 1000) / Math.max(1, result.iterations),
        };
      } finally {
        await workload.after?.();
      }
    };
    for (const workload of workloads) await run(workload, 1000);
    for (let round = 0; round < rounds; round += 1) {
      // Each round starts one workload later, so no workload always runs first or last.
      for (let i = 0; i < workloads.length; i += 1) {
        const workload = workloads[(round + i) % workloads.length]!;
        const { perSecond, cpuUs } = await run(workload, phaseMs);
        rates.get(workload.name)!.push(perSecond);
        cpu.get(workload.name)!.push(cpuUs);
      }
    }

    const perSecond = Object.fromEntries([...rates].map(([name, values]) => [name, Math.round(median(values))]));
    /**
     * The median over the rounds of one workload's rate divided by another's in the same round: the two ran seconds
     * apart, so a change of machine load between rounds cancels out.
     */
    const roundRatio = (name: string, of: string, measured = rates) => {
      const [values, bases] = [measured.get(name), measured.get(of)];
      if (!values || !bases) return undefined;
      return Number(median(values.map((value, i) => (bases[i]! > 0 ? value / bases[i]! : 0))).toFixed(2));
    };
    /** The same from CPU time per iteration: the other workload's cost divided by this one's (higher is cheaper). */
    const cpuRatio = (name: string, of: string) => roundRatio(of, name, cpu);
    return {
      concurrency,
      rounds,
      phaseMs,
      perSecond,
      ratios: {
        clientCredentials: roundRatio('clientCredentials', 'baselineClientCredentials'),
        impersonation: roundRatio('impersonation', 'baselineClientCredentials'),
        impersonationRedis: roundRatio('impersonationRedis', 'baselineClientCredentials'),
        clientCredentialsWithScript: roundRatio('clientCredentialsWithScript', 'baselineClientCredentials'),
        scriptToWithout: roundRatio('clientCredentialsWithScript', 'clientCredentials'),
        sqliteClientCredentials: roundRatio('clientCredentialsSqlite', 'clientCredentials'),
        sqliteImpersonation: roundRatio('impersonationSqlite', 'impersonation'),
      },
      cpuRatios: {
        clientCredentials: cpuRatio('clientCredentials', 'baselineClientCredentials'),
        impersonation: cpuRatio('impersonation', 'baselineClientCredentials'),
        impersonationRedis: cpuRatio('impersonationRedis', 'baselineClientCredentials'),
        clientCredentialsWithScript: cpuRatio('clientCredentialsWithScript', 'baselineClientCredentials'),
        scriptToWithout: cpuRatio('clientCredentialsWithScript', 'clientCredentials'),
        sqliteClientCredentials: cpuRatio('clientCredentialsSqlite', 'clientCredentials'),
        sqliteImpersonation: cpuRatio('impersonationSqlite', 'impersonation'),
      },
      /** CPU time of the serving process per iteration, microseconds (median over the rounds). */
      cpuUsPerIteration: Object.fromEntries([...cpu].map(([name, values]) => [name, Math.round(median(values))])),
      perRound: Object.fromEntries([...rates].map(([name, values]) => [name, values.map(Math.round)])),
      errors,
      rssMb: {
        baseline: { idle: idle.baseline, peak: peakRssMb(baseline.pid) },
        service: { idle: idle.service, peak: peakRssMb(service.pid) },
      },
    };
  } finally {
    for (const http of clients) http.close();
    await Promise.all(started.map((child) => child.stop()));
  }
}

export type TokenBenchResult = Awaited<ReturnType<typeof runTokenBench>>;
