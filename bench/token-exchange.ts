import { fileURLToPath } from 'node:url';
import { createHttpClient, measure, peakRssMb } from './load.ts';
import { BENCH_ADMIN, basicAuth, startBenchService } from './service-process.ts';

const RESOURCE = 'https://bench.example.com';
const GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
const AT = 'urn:ietf:params:oauth:token-type:access_token';

const form = (params: Record<string, string>) => new URLSearchParams(params).toString();

async function json<T>(promise: Promise<{ status: number; body: string }>, expected: number): Promise<T> {
  const res = await promise;
  if (res.status !== expected) throw new Error(`setup failed with ${res.status}: ${res.body}`);
  return JSON.parse(res.body) as T;
}

/**
 * Token exchanges per second (create subject token + exchange, the whole impersonation round trip) next
 * to plain client-credentials grants per second, on the same process and store.
 */
export async function runTokenExchangeBench(options: { redisUrl?: string; durationMs?: number; concurrency?: number } = {}) {
  const durationMs = options.durationMs ?? 8000;
  const concurrency = options.concurrency ?? 16;
  // One management client creates thousands of subject tokens a second here, far past the per-client default.
  const server = await startBenchService({ SUBJECT_TOKEN_RATE_LIMIT: '0', ...(options.redisUrl ? { REDIS_URL: options.redisUrl } : {}) });
  const http = createHttpClient(server.baseUrl, concurrency * 2);
  try {
    const tokenHeaders = (authorization: string) => ({ 'content-type': 'application/x-www-form-urlencoded', authorization });
    const admin = await json<{ access_token: string }>(http.send('POST', '/oidc/token', tokenHeaders(basicAuth(BENCH_ADMIN.id, BENCH_ADMIN.secret)),
      form({ grant_type: 'client_credentials', resource: `${server.baseUrl}/api`, scope: 'all' })), 200);
    const api = (method: string, path: string, body: unknown, status: number) => json<{ id: string; secret?: string }>(
      http.send(method, path, { 'content-type': 'application/json', authorization: `Bearer ${admin.access_token}` }, JSON.stringify(body)),
      status,
    );
    const resource = await api('POST', '/api/resources', { name: 'bench', indicator: RESOURCE }, 201);
    const read = await api('POST', `/api/resources/${resource.id}/scopes`, { name: 'read' }, 201);
    const userRole = await api('POST', '/api/roles', { name: 'bench-user', type: 'User', scopeIds: [read.id] }, 201);
    const m2mRole = await api('POST', '/api/roles', { name: 'bench-m2m', type: 'MachineToMachine', scopeIds: [read.id] }, 201);
    const user = await api('POST', '/api/users', { username: 'bench_user' }, 201);
    await api('POST', `/api/users/${user.id}/roles`, { roleIds: [userRole.id] }, 201);
    const m2m = await api('POST', '/api/applications', { name: 'bench-m2m', type: 'MachineToMachine' }, 201);
    await api('POST', `/api/applications/${m2m.id}/roles`, { roleIds: [m2mRole.id] }, 201);
    const app = await api('POST', '/api/applications', {
      name: 'bench-exchange', type: 'Traditional', customClientMetadata: { allowTokenExchange: true },
    }, 201);

    const clientCredentials = async () => {
      const res = await http.send('POST', '/oidc/token', tokenHeaders(basicAuth(m2m.id, m2m.secret!)),
        form({ grant_type: 'client_credentials', resource: RESOURCE, scope: 'read' }));
      if (res.status !== 200) throw new Error(res.body);
    };
    const exchange = async () => {
      const created = await json<{ subjectToken: string }>(http.send('POST', '/api/subject-tokens', {
        'content-type': 'application/json', authorization: `Bearer ${admin.access_token}`,
      }, JSON.stringify({ userId: user.id })), 201);
      const res = await http.send('POST', '/oidc/token', tokenHeaders(basicAuth(app.id, app.secret!)), form({
        grant_type: GRANT, subject_token: created.subjectToken, subject_token_type: AT, resource: RESOURCE, scope: 'read',
      }));
      if (res.status !== 200) throw new Error(res.body);
    };

    const bounded = { concurrency, maxIterations: 1_000_000 };
    await measure(clientCredentials, { ...bounded, durationMs: 1000 });
    const cc = await measure(clientCredentials, { ...bounded, durationMs });
    await measure(exchange, { ...bounded, durationMs: 1000 });
    const te = await measure(exchange, { ...bounded, durationMs });
    return {
      storage: server.storage,
      concurrency,
      clientCredentialsPerSecond: Math.round(cc.perSecond),
      tokenExchangesPerSecond: Math.round(te.perSecond),
      ratio: Number((te.perSecond / cc.perSecond).toFixed(2)),
      errors: cc.errors + te.errors,
      serverPeakRssMb: peakRssMb(server.pid),
    };
  } finally {
    http.close();
    server.stop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(await runTokenExchangeBench({ redisUrl: process.env.BENCH_REDIS_URL }));
}
