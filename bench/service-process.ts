import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { SeedSummary } from './seed.ts';

/** Credentials of the bootstrap admin of every bench service. */
export const BENCH_ADMIN = { id: 'bench-admin', secret: 'bench-admin-secret-0123456789' };

export const basicAuth = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

export interface BenchProcess<Info> {
  info: Info;
  pid: number;
  /** Sends SIGTERM to this process (by its pid) and waits for it to exit. */
  stop(): Promise<void>;
}

/**
 * Starts one bench script in its own process and reads the JSON line it prints once it listens.
 * `BENCH_PROFILE=<dir>` writes a CPU profile of it there, `BENCH_HEAP_PROFILE=<dir>` a heap profile.
 */
async function startProcess<Info>(
  script: string,
  env: Record<string, string>,
  nodeFlags: string[] = [],
): Promise<BenchProcess<Info>> {
  const profile = [
    ...nodeFlags,
    ...(process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : []),
    ...(process.env.BENCH_HEAP_PROFILE ? ['--heap-prof', `--heap-prof-dir=${process.env.BENCH_HEAP_PROFILE}`] : []),
  ];
  const child = spawn(process.execPath, [...profile, fileURLToPath(new URL(script, import.meta.url))], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const first = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  return {
    info: JSON.parse(first) as Info,
    pid: child.pid!,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, 'SIGTERM');
      await exited;
    },
  };
}

/** Whether a value of the start script's assignments is a path (the compile cache) rather than a setting. */
export const namesPath = (value: string): boolean => value.includes('/');

/**
 * How `npm start` runs the service (`[NAME=value …] exec node <flags> bin/server.ts`): its environment assignments and Node
 * flags, so the bench measures the same. Relative paths in the assignments are relative to the project.
 */
export function serviceStartup(): { env: Record<string, string>; nodeFlags: string[] } {
  const root = new URL('../', import.meta.url);
  const manifest = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { scripts: { start: string } };
  const words = manifest.scripts.start.split(/\s+/);
  const node = words.indexOf('node');
  const env = Object.fromEntries(
    // The assignments before `node`; `exec` makes the shell npm runs the script in hand its signals to the service.
    words
      .slice(0, node)
      .filter((word) => word.includes('='))
      .map((word) => {
        const [name, value] = [word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)];
        // A relative path is the project's; any other value is passed as written.
        return [name, namesPath(value) && !value.startsWith('/') ? fileURLToPath(new URL(value, root)) : value];
      }),
  );
  return {
    env,
    nodeFlags: words.slice(node + 1, words.indexOf('bin/server.ts')).filter((word) => word.startsWith('--')),
  };
}

/**
 * Starts the service under measurement (bench/server.ts) in its own process, with the environment and Node flags of
 * `npm start`,
 * so that the load generator and the webhook receiver stay out of its event loop.
 */
export async function startBenchService(env: Record<string, string>) {
  const startup = serviceStartup();
  // Each on a data directory of its own (several run side by side), removed when it stops.
  const dataDir = mkdtempSync(join(tmpdir(), 'identity-bench-'));
  const child = await startProcess<{ baseUrl: string; storage: string; seed?: SeedSummary }>(
    './server.ts',
    {
      ...startup.env,
      DATA_DIR: dataDir,
      ...env,
      ADMIN_CLIENT_ID: BENCH_ADMIN.id,
      ADMIN_CLIENT_SECRET: BENCH_ADMIN.secret,
      LOG_LEVEL: 'silent',
    },
    startup.nodeFlags,
  );
  return {
    ...child.info,
    pid: child.pid,
    async stop() {
      await child.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Starts the plain node-oidc-provider of bench/baseline-server.ts in its own process, with Node's defaults. */
export async function startBaseline() {
  const child = await startProcess<{ baseUrl: string; clientId: string; clientSecret: string }>(
    './baseline-server.ts',
    {},
  );
  return { ...child.info, pid: child.pid, stop: child.stop };
}
