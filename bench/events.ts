import { fileURLToPath } from 'node:url';
import { cpuMs, createHttpClient } from './load.ts';
import { BENCH_ADMIN, basicAuth, startBenchService } from './service-process.ts';

export interface EventsBenchOptions {
  /** The embedded store (`STORAGE`) the events are kept in. */
  storage?: 'memory' | 'sqlite';
  /** Events written before reading (role creations, 32 at a time). */
  events?: number;
  /** Events per page read. */
  limit?: number;
  /** Concurrent readers, each following cursors from the start of the log to its end, again and again. */
  readers?: number;
  readMs?: number;
}

/**
 * `GET /api/events` reads: `events` events are written through the management API, then `readers` consumers each
 * follow cursors from the oldest event to the newest, `limit` a page, over and over for `readMs`. Events read per
 * second (and pages per second) across all readers, and the serving process's CPU time per event read.
 */
export async function runEventsBench(options: EventsBenchOptions = {}): Promise<Record<string, number | string>> {
  const { storage = 'sqlite', events = 5000, limit = 500, readers = 4, readMs = 5000 } = options;
  const env = { STORAGE: storage };
  await (await startBenchService(env)).stop();
  const server = await startBenchService(env);
  const http = createHttpClient(server.baseUrl, 64);
  try {
    const tokenRes = await http.send(
      'POST',
      '/oidc/token',
      {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: basicAuth(BENCH_ADMIN.id, BENCH_ADMIN.secret),
      },
      new URLSearchParams({
        grant_type: 'client_credentials',
        resource: `${server.baseUrl}/api`,
        scope: 'all',
      }).toString(),
    );
    if (tokenRes.status !== 200) throw new Error(`admin token failed: ${tokenRes.status} ${tokenRes.body}`);
    const headers = {
      'content-type': 'application/json',
      authorization: `Bearer ${(JSON.parse(tokenRes.body) as { access_token: string }).access_token}`,
    };
    let written = 0;
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (written < events) {
          const name = `events-bench-${written++}`;
          const res = await http.send('POST', '/api/roles', headers, JSON.stringify({ name }));
          if (res.status !== 201) throw new Error(`write failed: ${res.status} ${res.body}`);
        }
      }),
    );
    let eventsRead = 0;
    let pages = 0;
    const cpuBefore = cpuMs(server.pid);
    const started = performance.now();
    await Promise.all(
      Array.from({ length: readers }, async () => {
        let cursor = '';
        for (let round = 0; round < 1_000_000 && performance.now() - started < readMs; round += 1) {
          const res = await http.send('GET', `/api/events?limit=${limit}${cursor ? `&after=${cursor}` : ''}`, headers);
          if (res.status !== 200) throw new Error(`read failed: ${res.status} ${res.body}`);
          const page = JSON.parse(res.body) as { events: unknown[]; nextCursor: string };
          eventsRead += page.events.length;
          pages += 1;
          // At the end of the log, start again from its beginning.
          cursor = page.events.length < limit ? '' : page.nextCursor;
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    return {
      documents: storage,
      eventsInLog: events,
      pageLimit: limit,
      readers,
      eventsReadPerSecond: Math.round(eventsRead / seconds),
      pagesPerSecond: Math.round(pages / seconds),
      cpuUsPerEventRead: Number((((cpuMs(server.pid) - cpuBefore) * 1000) / Math.max(1, eventsRead)).toFixed(1)),
    };
  } finally {
    http.close();
    await server.stop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(await runEventsBench({ ...(process.argv.includes('--memory') ? { storage: 'memory' as const } : {}) }));
}
