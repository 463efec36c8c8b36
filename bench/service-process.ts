import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** Credentials of the bootstrap admin of every bench service. */
export const BENCH_ADMIN = { id: 'bench-admin', secret: 'bench-admin-secret-0123456789' };

export const basicAuth = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

/**
 * Starts the service under measurement (bench/server.ts) in its own process, so that the load generator
 * and the webhook receiver stay out of its event loop. `BENCH_PROFILE=<dir>` writes a CPU profile there.
 */
export async function startBenchService(env: Record<string, string>) {
  const profile = process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
  const child = spawn(process.execPath, [...profile, fileURLToPath(new URL('./server.ts', import.meta.url))], {
    env: {
      ...process.env, ...env, ADMIN_CLIENT_ID: BENCH_ADMIN.id, ADMIN_CLIENT_SECRET: BENCH_ADMIN.secret, LOG_LEVEL: 'silent',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const first = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`bench service exited with ${code}`)));
  });
  const { baseUrl, storage } = JSON.parse(first) as { baseUrl: string; storage: string };
  return { baseUrl, storage, pid: child.pid!, stop: () => child.kill('SIGTERM') };
}
