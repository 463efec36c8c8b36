import { spawn } from 'node:child_process';
import { cpSync, existsSync, linkSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { homedir, userInfo } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import type { Instruction } from './dockerfile.ts';

/** One `FROM` and what follows it, up to the next `FROM`. */
export interface Stage {
  name: string | undefined;
  instructions: Instruction[];
}

/** The stages of a Dockerfile, in order. */
export function stagesOf(instructions: Instruction[]): Stage[] {
  const stages: Stage[] = [];
  for (const instruction of instructions) {
    if (instruction.keyword === 'FROM') {
      stages.push({ name: /\sAS\s+(\S+)$/i.exec(instruction.args)?.[1], instructions: [] });
    } else {
      const stage = stages.at(-1);
      if (!stage) throw new Error(`${instruction.keyword} before the first FROM`);
      stage.instructions.push(instruction);
    }
  }
  return stages;
}

/** What a replayed stage left: its file system, its working directory and every RUN step with its output. */
export interface ReplayedStage {
  name: string | undefined;
  /** The stage's `/`: every absolute path the stage names lives under it. */
  root: string;
  /** Its last WORKDIR, under `root`. */
  workdir: string;
  env: Record<string, string>;
  runs: Array<{ command: string; output: string }>;
}

/** The directories an image's base brings: a RUN step that names them means the system's, not the stage's. */
const SYSTEM_DIRS = new Set(['bin', 'dev', 'etc', 'lib', 'lib64', 'proc', 'sbin', 'sys', 'tmp', 'usr', 'var']);
/** The users the base image (node:*-bookworm-slim) defines; the replay runs as whoever runs it. */
const IMAGE_USERS = ['node'];

/** `.dockerignore` as a predicate over paths relative to the build context (Docker's rules: no implicit `**`). */
function ignoredBy(context: string): (path: string) => boolean {
  const file = join(context, '.dockerignore');
  const patterns = existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .map((line) => line.trim())
        .filter((line) => line && !line.startsWith('#'))
        .map((pattern) => new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}(/|$)`))
    : [];
  return (path) => patterns.some((pattern) => pattern.test(path));
}

/** Absolute paths outside the system's directories, moved under the stage's root. */
function localPaths(text: string, root: string): string {
  return text.replace(/(^|[\s=:'"])(\/[\w.-]+)(\/[^\s'"]*)?/g, (whole, before: string, first: string, rest = '') =>
    SYSTEM_DIRS.has(first.slice(1)) ? whole : `${before}${root}${first}${rest}`,
  );
}

/**
 * A RUN step's command as it runs in the replay: an absolute path outside the system's directories is the stage's
 * (under its root), and the image's users are the user running the replay.
 */
function localCommand(command: string, root: string): string {
  const { uid, gid } = userInfo();
  let local = localPaths(command, root);
  for (const user of IMAGE_USERS)
    local = local.replace(new RegExp(`\\b(chown\\s+(?:-\\S+\\s+)*)${user}:${user}\\b`, 'g'), `$1${uid}:${gid}`);
  return local;
}

function runStep(command: string, cwd: string, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', command], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    // The step and everything it started (npm's scripts) stop at the bound.
    const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), timeoutMs);
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(output);
      else
        reject(
          new Error(
            `RUN ${command}\nfailed (${signal ? `killed after ${timeoutMs} ms` : `exit ${code}`}):\n${output.slice(-4000)}`,
          ),
        );
    });
  });
}

/**
 * A private npm cache for the replay, offline: the checkout's install left every package of the lock in the user's
 * cache. The package contents (immutable, named by their digest) are linked, the index copied, so a step that cleans
 * its cache (`npm cache clean --force`) or writes to it leaves the user's own alone.
 */
function privateNpmCache(workspace: string): string {
  const source = join(process.env.npm_config_cache ?? join(homedir(), '.npm'), '_cacache');
  const cache = join(workspace, 'npm-cache');
  if (!existsSync(join(source, 'index-v5'))) {
    throw new Error(
      `no npm cache at ${source}: run npm install in the checkout first (the replay installs offline from it)`,
    );
  }
  mkdirSync(join(cache, '_cacache'), { recursive: true });
  cpSync(join(source, 'index-v5'), join(cache, '_cacache', 'index-v5'), { recursive: true });
  linkTree(join(source, 'content-v2'), join(cache, '_cacache', 'content-v2'));
  return cache;
}

function linkTree(from: string, to: string): void {
  mkdirSync(to, { recursive: true });
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    if (entry.isDirectory()) linkTree(join(from, entry.name), join(to, entry.name));
    else linkSync(join(from, entry.name), join(to, entry.name));
  }
}

/**
 * Replays a Dockerfile without a container runtime: each stage gets a directory of its own as its `/`, holding only
 * what its COPY instructions bring (from the build context, minus `.dockerignore`, or from an earlier stage), and
 * runs its RUN steps there in order, with the stage's ENV, offline, each bounded by `stepTimeoutMs`. The first step
 * that fails throws with its output.
 */
export async function replayDockerfile(
  instructions: Instruction[],
  options: {
    context: string;
    workspace: string;
    stepTimeoutMs: number;
  },
): Promise<ReplayedStage[]> {
  const ignored = ignoredBy(options.context);
  const npmCache = privateNpmCache(options.workspace);
  const replayed: ReplayedStage[] = [];
  for (const [index, stage] of stagesOf(instructions).entries()) {
    const root = join(options.workspace, `stage-${index}${stage.name ? `-${stage.name}` : ''}`);
    const done: ReplayedStage = { name: stage.name, root, workdir: root, env: {}, runs: [] };
    mkdirSync(root, { recursive: true });
    for (const { keyword, args } of stage.instructions) {
      if (keyword === 'WORKDIR') {
        done.workdir = join(root, args);
        mkdirSync(done.workdir, { recursive: true });
      } else if (keyword === 'ENV') {
        for (const pair of args.split(/\s+/))
          done.env[pair.slice(0, pair.indexOf('='))] = pair.slice(pair.indexOf('=') + 1);
      } else if (keyword === 'COPY') {
        copy(args, done, replayed, options.context, ignored);
      } else if (keyword === 'RUN') {
        const command = localCommand(args, root);
        const home = join(root, 'root');
        mkdirSync(home, { recursive: true });
        const output = await runStep(
          command,
          done.workdir,
          {
            // The image's Node (its base is node:24) is the one running the replay; npm comes from the system.
            PATH: `${dirname(process.execPath)}:${process.env.PATH}`,
            HOME: home,
            ...Object.fromEntries(Object.entries(done.env).map(([name, value]) => [name, localPaths(value, root)])),
            npm_config_cache: npmCache,
            npm_config_offline: 'true',
            npm_config_update_notifier: 'false',
          },
          options.stepTimeoutMs,
        );
        done.runs.push({ command: args, output });
      }
    }
    replayed.push(done);
  }
  return replayed;
}

function copy(
  args: string,
  stage: ReplayedStage,
  earlier: ReplayedStage[],
  context: string,
  ignored: (path: string) => boolean,
): void {
  const from = /^--from=(\S+)\s+/.exec(args);
  const rest = from ? args.slice(from[0].length) : args;
  if (rest.startsWith('--')) throw new Error(`COPY flags are not understood here: ${args}`);
  const parts = rest.split(/\s+/);
  const destination = join(stage.workdir, parts.at(-1)!);
  const sources = parts.slice(0, -1);
  const source = from ? earlier.find((candidate) => candidate.name === from[1]) : undefined;
  if (from && !source) throw new Error(`COPY --from=${from[1]}: no earlier stage of that name`);
  for (const path of sources) {
    const origin = source ? join(source.root, path) : join(context, path);
    if (!existsSync(origin))
      throw new Error(
        `COPY ${args}: ${path} does not exist${source ? ` in stage ${source.name}` : ' in the build context'}`,
      );
    const target = sources.length > 1 || parts.at(-1)!.endsWith('/') ? join(destination, basename(path)) : destination;
    cpSync(origin, target, {
      recursive: true,
      filter: (file) => source !== undefined || !ignored(relative(context, file)),
    });
    if (statSync(origin).isDirectory() && !existsSync(target)) mkdirSync(target, { recursive: true });
  }
}
