import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from './wait.ts';
import { freePort } from './processes.ts';

/** Whether a `redis-server` binary is on the PATH (the redis-server package provides it). */
export function redisServerInstalled(): boolean {
  return spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
}

/**
 * A private `redis-server` on its own loopback port, persisting every write (append-only file, fsync
 * always) in a directory of its own, so that a kill and a restart lose nothing it acknowledged.
 */
export class PrivateRedis {
  readonly port: number;
  readonly #dir: string;
  #process: ChildProcess | undefined;

  private constructor(port: number) {
    this.port = port;
    this.#dir = mkdtempSync(join(tmpdir(), 'outbox-redis-'));
  }

  static async start(): Promise<PrivateRedis> {
    const redis = new PrivateRedis(await freePort());
    await redis.restart();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async restart(): Promise<void> {
    if (this.#process) throw new Error('already running');
    const child = spawn(
      'redis-server',
      [
        '--port',
        String(this.port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'yes',
        '--appendfsync',
        'always',
        '--dir',
        this.#dir,
        '--protected-mode',
        'yes',
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    this.#process = child;
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    await eventually(
      () => {
        if (child.exitCode !== null) throw new Error(`redis-server exited: ${output}`);
        return /Ready to accept connections/.test(output);
      },
      { timeoutMs: 10_000, what: 'redis-server ready' },
    );
  }

  /** Kills the server by its pid, without letting it save or say goodbye. */
  async kill(): Promise<void> {
    const child = this.#process;
    if (!child) return;
    this.#process = undefined;
    if (child.exitCode !== null) return;
    const exited = once(child, 'exit');
    process.kill(child.pid!, 'SIGKILL');
    await exited;
  }

  async stop(): Promise<void> {
    await this.kill();
    rmSync(this.#dir, { recursive: true, force: true });
  }
}
