import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { eventually } from './wait.ts';

/** Variables of the developer's shell that would change what a service started by a test does. */
const SERVICE_VARIABLES = new Set([
  'MONGODB_URI',
  'REDIS_URL',
  'ADMIN_CLIENT_ID',
  'ADMIN_CLIENT_SECRET',
  'NODE_ENV',
  'BASE_URL',
  'PORT',
  'HOST',
  'LOG_LEVEL',
  'STORAGE',
  'DATA_DIR',
  'SQLITE_SYNCHRONOUS',
]);

/** This process's environment without the variables that configure the service: a started one sees only the test's. */
export function serviceFreeEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([key]) => !SERVICE_VARIABLES.has(key)));
}

/** A loopback port nobody listens on right now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!address || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/**
 * Starts a script of the project (`bin/server.ts`, a worker) with Node and resolves once it printed a line naming
 * `ready`; rejects when it exits first. The caller stops it by its pid.
 */
export async function startUntilReady(
  script: string,
  options: { cwd: URL; env: NodeJS.ProcessEnv; name?: string; spawned?: (child: ChildProcess) => void },
): Promise<ChildProcess> {
  const child = spawn(process.execPath, [script], {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // Known to the caller before it is ready, so a start that fails is still stopped by the caller's clean-up.
  options.spawned?.(child);
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  await Promise.race([
    eventually(() => /ready/.test(output), 30_000),
    once(child, 'exit').then(([code]) => {
      throw new Error(`${options.name ?? script} exited with ${code} before it was ready`);
    }),
  ]);
  return child;
}
