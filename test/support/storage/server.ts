import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { pathToFileURL } from 'node:url';
import { ADMIN, LOOPBACK_NETWORKS, clientCredentialsToken, type RunningService } from '../service.ts';
import { freePort, startUntilReady } from '../processes.ts';

const ROOT = new URL('../../..', import.meta.url);

/** The real server (`bin/server.ts`) on one data directory and one port, started and killed as a test needs. */
export class ServerProcess {
  readonly dataDir: string;
  readonly baseUrl: string;
  readonly env: NodeJS.ProcessEnv;
  #child: ChildProcess | undefined;
  readonly #children: ChildProcess[] = [];
  #token: string | undefined;

  private constructor(dataDir: string, port: number, extra: Record<string, string>) {
    this.dataDir = dataDir;
    this.baseUrl = `http://127.0.0.1:${port}`;
    this.env = {
      PATH: process.env.PATH ?? '',
      PORT: String(port),
      BASE_URL: this.baseUrl,
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      ADMIN_CLIENT_ID: ADMIN.id,
      ADMIN_CLIENT_SECRET: ADMIN.secret,
      WEBHOOK_ALLOWED_NETWORKS: LOOPBACK_NETWORKS,
      AUTH_FAILURE_RATE_LIMIT: '0',
      SUBJECT_TOKEN_RATE_LIMIT: '0',
      MESSAGE_RATE_LIMIT_PER_IP: '0',
      ...extra,
    };
  }

  /** A server on a free port; `extra` adds to (or overrides) its environment. */
  static async on(dataDir: string, extra: Record<string, string> = {}): Promise<ServerProcess> {
    return new ServerProcess(dataDir, await freePort(), extra);
  }

  get pid(): number {
    return this.#child!.pid!;
  }

  /** Starts the server and waits for its ready line; `cwd`: the directory it runs in (a relative DATA_DIR is in it). */
  async start(cwd?: string): Promise<void> {
    this.#token = undefined;
    this.#child = await startUntilReady(new URL('bin/server.ts', ROOT).pathname, {
      cwd: cwd ? pathToFileURL(`${cwd}/`) : ROOT,
      env: this.env,
      spawned: (child) => this.#children.push(child),
    });
  }

  /** SIGKILL: no shutdown, nothing flushed that was not already. */
  async kill(): Promise<void> {
    const child = this.#child!;
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    process.kill(child.pid!, 'SIGKILL');
    await exited;
  }

  /** Kills whatever is still running (clean-up). */
  async close(): Promise<void> {
    const running = this.#children.filter((child) => child.exitCode === null && child.signalCode === null);
    const exits = running.map((child) => once(child, 'exit'));
    for (const child of running) process.kill(child.pid!, 'SIGKILL');
    await Promise.all(exits);
  }

  async adminToken(): Promise<string> {
    this.#token ??= await clientCredentialsToken(this.baseUrl, ADMIN.id, ADMIN.secret, `${this.baseUrl}/api`, 'all');
    return this.#token;
  }

  /** Like RunningService.request: the management token unless another authorization is given, JSON helpers. */
  async request(path: string, init: RequestInit & { json?: unknown; token?: string } = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    const token = init.token ?? (headers.has('authorization') ? undefined : await this.adminToken());
    if (token) headers.set('authorization', `Bearer ${token}`);
    let body = init.body;
    if (init.json !== undefined) {
      headers.set('content-type', 'application/json');
      body = JSON.stringify(init.json);
    }
    return fetch(`${this.baseUrl}${path}`, { ...init, headers, body });
  }

  /** What the fixtures that only make HTTP requests need of a running service. */
  asRunning(): RunningService {
    return {
      baseUrl: this.baseUrl,
      request: (path, init) => this.request(path, init),
      adminToken: () => this.adminToken(),
    } as RunningService;
  }
}

/** Runs a script of the project to its end: its exit code and what it printed. */
export async function runScript(
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  cwd?: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [script, ...args], {
    cwd: cwd ?? ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stdout, stderr };
}
