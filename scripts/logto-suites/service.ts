import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { endGroup } from './processes.ts';

const REPOSITORY = fileURLToPath(new URL('../../', import.meta.url));
const READY_TIMEOUT_MS = 60_000;
const CLIENT_ID = 'logto-suites';

export interface RunningService {
  baseUrl: string;
  /** A management API token of the bootstrap application (client credentials, every scope). */
  managementToken(): Promise<string>;
  alive(): boolean;
  stop(): Promise<void>;
}

export type Storage = 'memory' | 'sqlite';

/**
 * Starts this service standalone on a free loopback port (`bin/server.ts`, as `npm start` does), with an
 * environment of its own: nothing of the shell's service variables leaks in. The bootstrap application gets a
 * secret generated here, so the run can ask for management tokens.
 */
export async function startService(options: { storage: Storage; logFile: string }): Promise<RunningService> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const secret = randomBytes(32).toString('base64url');
  const dataDir = options.storage === 'sqlite' ? mkdtempSync(join(tmpdir(), 'logto-suites-data-')) : undefined;
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    NODE_ENV: 'development',
    HOST: '127.0.0.1',
    PORT: String(port),
    BASE_URL: baseUrl,
    STORAGE: options.storage,
    ...(dataDir ? { DATA_DIR: dataDir } : {}),
    ADMIN_CLIENT_ID: CLIENT_ID,
    ADMIN_CLIENT_SECRET: secret,
    LOG_LEVEL: 'info',
    // Logto's hook suites run their receivers on this machine.
    WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8,::1/128',
    // Budgets per client address: every request of every suite comes from 127.0.0.1, far past what one client
    // of a real deployment sends. Budgets per account, recipient and interaction stay as shipped.
    AUTH_FAILURE_RATE_LIMIT: '0',
    MESSAGE_RATE_LIMIT_PER_IP: '0',
  };
  const log = createWriteStream(options.logFile, { flags: 'a' });
  await once(log, 'open');
  const child = spawn(process.execPath, ['bin/server.ts'], {
    cwd: REPOSITORY,
    env,
    detached: true,
    stdio: ['ignore', log, log],
  });
  const stop = async (): Promise<void> => {
    await endGroup(child);
    log.end();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await untilReady(child, baseUrl);
  } catch (error) {
    await stop();
    throw error;
  }

  let cached: { token: string; expiresAt: number } | undefined;
  return {
    baseUrl,
    alive: () => child.exitCode === null && child.signalCode === null,
    stop,
    async managementToken() {
      // A token is asked for per suite; one that would expire within ten minutes is replaced.
      if (cached && cached.expiresAt > Date.now() + 10 * 60_000) return cached.token;
      const response = await fetch(`${baseUrl}/oidc/token`, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from(`${CLIENT_ID}:${secret}`).toString('base64')}` },
        body: new URLSearchParams({ grant_type: 'client_credentials', resource: `${baseUrl}/api`, scope: 'all' }),
        signal: AbortSignal.timeout(10_000),
      });
      const body = (await response.json()) as { access_token?: string; expires_in?: number };
      if (!response.ok || !body.access_token)
        throw new Error(`no management token: ${response.status} ${JSON.stringify(body)}`);
      cached = { token: body.access_token, expiresAt: Date.now() + (body.expires_in ?? 0) * 1000 };
      return cached.token;
    },
  };
}

async function untilReady(child: ChildProcess, baseUrl: string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`the service exited (${child.exitCode ?? child.signalCode}) before it was ready`);
    const ready = await fetch(`${baseUrl}/readyz`, { signal: AbortSignal.timeout(2_000) }).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`the service was not ready within ${READY_TIMEOUT_MS / 1000} s`);
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!address || typeof address === 'string') throw new Error('no free port');
  return address.port;
}
