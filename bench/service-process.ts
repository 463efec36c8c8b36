import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

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
async function startProcess<Info>(script: string, env: Record<string, string>): Promise<BenchProcess<Info>> {
  const profile = [
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

/**
 * Starts the service under measurement (bench/server.ts) in its own process, so that the load generator
 * and the webhook receiver stay out of its event loop.
 */
export async function startBenchService(env: Record<string, string>) {
  const child = await startProcess<{ baseUrl: string; storage: string }>('./server.ts', {
    ...env, ADMIN_CLIENT_ID: BENCH_ADMIN.id, ADMIN_CLIENT_SECRET: BENCH_ADMIN.secret, LOG_LEVEL: 'silent',
  });
  return { ...child.info, pid: child.pid, stop: child.stop };
}

/** Starts the plain node-oidc-provider of bench/baseline-server.ts in its own process. */
export async function startBaseline() {
  const child = await startProcess<{ baseUrl: string; clientId: string; clientSecret: string }>('./baseline-server.ts', {});
  return { ...child.info, pid: child.pid, stop: child.stop };
}
