import { readFileSync } from 'node:fs';
import { Agent, request, type IncomingHttpHeaders } from 'node:http';

export interface HttpResult {
  status: number;
  body: string;
  headers: IncomingHttpHeaders;
}

/** A minimal keep-alive HTTP client for load generation (fetch costs more CPU per request). */
export function createHttpClient(baseUrl: string, sockets: number) {
  const agent = new Agent({ keepAlive: true, maxSockets: sockets });
  const origin = new URL(baseUrl);
  return {
    send(method: string, path: string, headers: Record<string, string>, body?: string): Promise<HttpResult> {
      return new Promise((resolve, reject) => {
        const req = request(
          {
            agent,
            host: origin.hostname,
            port: origin.port,
            method,
            path,
            headers:
              body === undefined
                ? headers
                : {
                    ...headers,
                    'content-length': String(Buffer.byteLength(body)),
                  },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('end', () =>
              resolve({
                status: res.statusCode ?? 0,
                body: Buffer.concat(chunks).toString('utf8'),
                headers: res.headers,
              }),
            );
            res.on('error', reject);
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    },
    close() {
      agent.destroy();
    },
  };
}

/**
 * Runs `iteration` from `concurrency` loops until `durationMs` passes (or `maxIterations` is reached);
 * returns completed iterations per second. Every loop is bounded in time and count.
 */
export async function measure(
  iteration: () => Promise<void>,
  options: { concurrency: number; durationMs: number; maxIterations: number },
): Promise<{ perSecond: number; iterations: number; errors: number }> {
  let iterations = 0;
  let errors = 0;
  const started = performance.now();
  const deadline = started + options.durationMs;
  const loop = async () => {
    while (performance.now() < deadline && iterations + errors < options.maxIterations) {
      try {
        await iteration();
        iterations += 1;
      } catch {
        errors += 1;
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, loop));
  const seconds = (performance.now() - started) / 1000;
  return { perSecond: iterations / seconds, iterations, errors };
}

/** The `p`th percentile of ascending `sorted` values (nearest rank); NaN when there are none. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/**
 * As `measure`, also keeping each completed iteration's duration (ms) in `latencies`, so that the caller can pool
 * them over several phases before reading percentiles.
 */
export async function measureLatencies(
  iteration: () => Promise<void>,
  options: { concurrency: number; durationMs: number; maxIterations: number },
  latencies: number[],
): Promise<{ perSecond: number; iterations: number; errors: number }> {
  return measure(async () => {
    const started = performance.now();
    await iteration();
    latencies.push(performance.now() - started);
  }, options);
}

function statusMb(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  try {
    const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Math.round(Number(match[1]) / 1024) : -1;
  } catch {
    return -1;
  }
}

/** Peak resident set size of a process in MiB (Linux `VmHWM`), or -1 where it cannot be read. */
export const peakRssMb = (pid: number) => statusMb(pid, 'VmHWM');

/** Current resident set size of a process in MiB (Linux `VmRSS`), or -1 where it cannot be read. */
export const rssMb = (pid: number) => statusMb(pid, 'VmRSS');

/**
 * CPU time a process has used so far (user + system, all its threads), in milliseconds, from Linux
 * `/proc/<pid>/stat`; NaN where it cannot be read. Per request, it is the figure machine load disturbs least.
 */
export function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may itself hold spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return Number.NaN;
  }
}
/** The machine's CPU time so far by kind, in ticks (Linux `/proc/stat`, all CPUs); undefined where it cannot be read. */
function machineTicks(): { steal: number; total: number } | undefined {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal (guest time is counted in user already).
    const counted = fields.slice(0, 8);
    return { steal: counted[7] ?? 0, total: counted.reduce((sum, value) => sum + value, 0) };
  } catch {
    return undefined;
  }
}

/**
 * Starts counting the share of the machine's CPU time a hypervisor took from it (steal time): `percent()` answers it
 * for the time since the call, or -1 where it cannot be read. A virtual machine whose host is busy runs every
 * process here slower, and unevenly from second to second.
 */
export function stealSince(): { percent(): number } {
  const start = machineTicks();
  return {
    percent() {
      const end = machineTicks();
      if (!start || !end || end.total <= start.total) return -1;
      return Number(((100 * (end.steal - start.steal)) / (end.total - start.total)).toFixed(1));
    },
  };
}

/** Linux's USER_HZ, 100 on every architecture Node runs on. */
const CLOCK_TICKS_PER_SECOND = 100;

export const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
