import { expect } from 'chai';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { eventually } from '../support/wait.ts';
import { environment, execForm, readDockerfile, sourceCopies } from '../support/operations/dockerfile.ts';
import { replayDockerfile, type ReplayedStage } from '../support/operations/dockerfile-replay.ts';
import { freePort, serviceFreeEnv } from '../support/processes.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const instructions = readDockerfile(join(root, 'Dockerfile'));
const run = promisify(execFile);
const ADMIN = { id: 'image-admin', secret: 'image-admin-secret-0123456789' };

/** Runs an image command (`node …`) with this Node. */
function imageProcess(command: string[], cwd: string, env: Record<string, string>): ChildProcess {
  const [program, ...args] = command;
  expect(program).to.equal('node');
  // The image's compile cache lives in its user's home; here it stays inside the rebuilt image's directory.
  const image = { ...environment(instructions), NODE_COMPILE_CACHE: join(cwd, '.node-compile-cache') };
  return spawn(process.execPath, args, {
    cwd,
    env: { ...serviceFreeEnv(), ...image, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

function dockerignored(path: string): boolean {
  const patterns = readFileSync(join(root, '.dockerignore'), 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'));
  return patterns.some((pattern) => {
    const regex = new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}(/|$)`);
    return regex.test(path);
  });
}

/**
 * The image, rebuilt by replaying the Dockerfile (test/support/operations/dockerfile-replay.ts): every stage from exactly the
 * files its COPY instructions bring, every RUN step run in order, offline from npm's cache. A step that fails (a file
 * a stage needs and does not copy, say) fails the replay with that step's output.
 */
describe('the container image, rebuilt from the Dockerfile without a container runtime', function () {
  // Two installs from npm's cache come first, each step bounded.
  this.timeout(600_000);
  let workspace: string;
  let stages: ReplayedStage[];
  let dir: string;
  let server: ChildProcess | undefined;

  before(async () => {
    workspace = mkdtempSync(join(tmpdir(), 'identity-image-'));
    stages = await replayDockerfile(instructions, { context: root, workspace, stepTimeoutMs: 240_000 });
    dir = stages.at(-1)!.workdir;
  });
  after(async () => {
    if (server?.pid && server.exitCode === null && server.signalCode === null) {
      const exited = new Promise((resolve) => server!.once('exit', resolve));
      process.kill(server.pid, 'SIGKILL');
      await exited;
    }
    rmSync(workspace, { recursive: true, force: true });
  });

  it('runs every RUN step of every stage; the console stage builds the bundle the image copies', () => {
    const runs = stages.flatMap((stage) => stage.runs.map((run) => run.command));
    const written = instructions
      .filter((instruction) => instruction.keyword === 'RUN')
      .map((instruction) => instruction.args);
    expect(runs).to.deep.equal(written);
    const consoleStage = stages.find((stage) => stage.name === 'console')!;
    const manifest = readFileSync(join(consoleStage.workdir, 'console/dist/manifest.json'), 'utf8');
    expect(JSON.parse(manifest)).to.have.nested.property('entries.console.script');
    expect(readFileSync(join(dir, 'console/dist/manifest.json'), 'utf8')).to.equal(manifest);
    // The data directory the image declares as a volume exists, for the service's user only.
    expect(existsSync(join(stages.at(-1)!.root, environment(instructions).DATA_DIR!))).to.equal(true);
  });

  it('installs from the committed lock every runtime dependency, loadable, and no dev dependency', async () => {
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { version: string; dev?: boolean }>;
    };
    const runtime = Object.keys(manifest.dependencies);
    for (const name of runtime) {
      const installed = JSON.parse(readFileSync(join(dir, 'node_modules', name, 'package.json'), 'utf8')) as {
        version: string;
      };
      expect(installed.version, name).to.equal(lock.packages[`node_modules/${name}`]!.version);
    }
    // Type packages are shipped for TypeScript hosts of the published package: nothing to load.
    const loadable = runtime.filter((name) => !name.startsWith('@types/'));
    const script = `for (const name of ${JSON.stringify(loadable)}) await import(name);`;
    await run(process.execPath, ['--input-type=module', '-e', script], { cwd: dir });
    // Dev dependencies and whatever only they need; a dev dependency that a runtime package needs too stays.
    const devOnly = Object.entries(lock.packages)
      .filter(([path, entry]) => path && entry.dev)
      .map(([path]) => path);
    expect(devOnly).to.include.members(['node_modules/typescript', 'node_modules/mocha', 'node_modules/node']);
    for (const path of devOnly) expect(existsSync(join(dir, path)), path).to.equal(false);
  });

  it('copies everything the service loads: the server starts from those files, serves, runs the sandbox, and passes the HEALTHCHECK', async () => {
    const copies = sourceCopies(instructions);
    expect(copies.length).to.be.greaterThan(0);
    for (const { sources } of copies) {
      for (const source of sources) {
        expect(dockerignored(source), `.dockerignore excludes ${source}, which the image copies`).to.equal(false);
      }
    }

    const port = await freePort();
    server = imageProcess(execForm(instructions, 'CMD'), dir, {
      PORT: String(port),
      DATA_DIR: join(dir, 'data'),
      ADMIN_CLIENT_ID: ADMIN.id,
      ADMIN_CLIENT_SECRET: ADMIN.secret,
      LOG_LEVEL: 'info',
    });
    let output = '';
    server.stdout!.on('data', (chunk) => (output += chunk));
    server.stderr!.on('data', (chunk) => (output += chunk));
    await eventually(() => /"msg":"ready/.test(output) || server!.exitCode !== null, {
      timeoutMs: 30_000,
      what: 'the ready line',
    });
    expect(output).to.match(/"msg":"ready/);

    const base = `http://127.0.0.1:${port}`;
    expect((await fetch(`${base}/readyz`)).status).to.equal(200);
    // HOST=0.0.0.0: every interface, so another loopback address too (`npm start` alone answers only on 127.0.0.1).
    expect(environment(instructions).HOST).to.equal('0.0.0.0');
    expect((await fetch(`http://127.0.0.2:${port}/healthz`)).status).to.equal(200);
    // The console's bundle, built in the image's first stage, is there: the page names hashed assets it serves.
    const consolePage = await (await fetch(`${base}/console`)).text();
    const script = /<script type="module" src="([^"]+)"/.exec(consolePage)?.[1];
    expect(script, 'the console page names its script').to.match(/^\/console\/assets\//);
    expect((await fetch(`${base}${script}`)).status).to.equal(200);
    const health = imageProcess(execForm(instructions, 'HEALTHCHECK'), dir, { PORT: String(port) });
    expect(await new Promise((resolve) => health.once('exit', resolve)), 'HEALTHCHECK exit code').to.equal(0);

    // The customizer's sandbox runs in a worker thread from its own file and loads QuickJS's WebAssembly.
    const tokenResponse = await fetch(`${base}/oidc/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${ADMIN.id}:${ADMIN.secret}`).toString('base64')}` },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        resource: `http://localhost:${port}/api`,
        scope: 'all',
      }),
    });
    const { access_token: token } = (await tokenResponse.json()) as { access_token: string };
    const test = await fetch(`${base}/api/configs/jwt-customizer/test`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        script: 'const getCustomJwtClaims = () => ({ fromImage: true });',
        token: {},
        context: {},
      }),
    });
    expect(await test.json()).to.deep.equal({ fromImage: true });

    const exited = new Promise((resolve) => server!.once('exit', resolve));
    process.kill(server.pid!, 'SIGTERM');
    expect(await exited).to.equal(0);
  });

  it('starts the worker from the same files (it stops at its configuration check without MongoDB and Redis)', async () => {
    const worker = imageProcess(['node', 'bin/worker.ts'], dir, {});
    let stderr = '';
    worker.stderr!.on('data', (chunk) => (stderr += chunk));
    expect(await new Promise((resolve) => worker.once('exit', resolve))).to.equal(2);
    expect(stderr).to.match(/MONGODB_URI/);
  });
});
