import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';

export interface Finished {
  /** Exit code, or null when it was ended by a signal. */
  code: number | null;
  timedOut: boolean;
}

/**
 * Ends a process group started with `detached: true`: SIGTERM, then SIGKILL after a grace period. Jest and pnpm
 * start children of their own, so the group is ended, not only the process.
 */
export async function endGroup(child: ChildProcess, graceMs = 5_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = once(child, 'exit');
  signalGroup(child.pid, 'SIGTERM');
  const killer = setTimeout(() => signalGroup(child.pid!, 'SIGKILL'), graceMs);
  await exited;
  clearTimeout(killer);
  // Children that ignored SIGTERM outlive their parent: the group gets SIGKILL in any case.
  signalGroup(child.pid, 'SIGKILL');
}

export function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is gone already.
  }
}

/**
 * Runs a command in its own process group with its output appended to `logFile`, ended when it runs longer than
 * `timeoutMs`.
 */
export async function runLogged(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; logFile: string; timeoutMs: number },
): Promise<Finished> {
  const log = createWriteStream(options.logFile, { flags: 'a' });
  await once(log, 'open');
  log.write(`\n$ ${command} ${args.join(' ')}\n`);
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env,
    detached: true,
    stdio: ['ignore', log, log],
  });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    void endGroup(child);
  }, options.timeoutMs);
  const [code] = (await once(child, 'exit')) as [number | null];
  clearTimeout(timer);
  // Whatever the command left running in its group (jest workers, servers a suite started) ends with it.
  signalGroup(child.pid!, 'SIGKILL');
  log.end();
  await once(log, 'close');
  return { code, timedOut };
}
