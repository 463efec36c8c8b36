import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { runLogged } from './processes.ts';

/** The pnpm major Logto's CI uses. */
const PNPM = 'pnpm@10';
const INSTALL_TIMEOUT_MS = 20 * 60_000;
const BUILD_TIMEOUT_MS = 20 * 60_000;
const INTEGRATION_TESTS = '@logto/integration-tests';

export interface Checkout {
  root: string;
  /** `<root>/.logto-suites`: pnpm, its store, the packed fork, logs and results. */
  work: string;
  tests: string;
  version: string;
}

export function openCheckout(path: string): Checkout {
  const root = resolve(path);
  const tests = join(root, 'packages/integration-tests');
  if (!existsSync(join(tests, 'package.json'))) {
    throw new Error(`${root} is not a Logto checkout: packages/integration-tests/package.json is missing`);
  }
  const work = join(root, '.logto-suites');
  mkdirSync(work, { recursive: true });
  const version = readJson(join(root, 'packages/core/package.json')).version as string;
  return { root, work, tests, version };
}

/**
 * Installs and builds what Logto's integration tests import (their workspace packages: schemas, shared, the kits,
 * api), from the npm registry. Two of Logto's dependencies are not there: its node-oidc-provider fork (a GitHub
 * dependency of `@logto/core`, packed from the checkout given) and the unpublished `@logto/cloud` (a development
 * dependency of packages the tests do not use, dropped). Both edits are made in the checkout's package.json
 * files; pnpm resolves the whole workspace even when it installs a part of it, hence the edits to packages it
 * does not build. Done once: a second run finds the stamp and skips it.
 */
export async function buildCheckout(
  checkout: Checkout,
  options: { oidcProvider?: string; rebuild: boolean; say: (line: string) => void },
): Promise<void> {
  const stamp = join(checkout.work, 'built.json');
  if (!options.rebuild && existsSync(stamp) && existsSync(join(checkout.tests, 'lib/tests/api'))) {
    options.say(`build: already built (${stamp}; --rebuild to build again)`);
    return;
  }
  const logFile = join(checkout.work, 'build.log');
  const env: NodeJS.ProcessEnv = { ...process.env, PUPPETEER_SKIP_DOWNLOAD: '1', npm_config_engine_strict: 'false' };

  installPackedFork(checkout, options.oidcProvider, options.say);
  for (const file of workspaceManifests(checkout.root)) dropCloudDependency(file);

  const tools = join(checkout.work, 'tools');
  options.say(`build: installing ${PNPM} (log: ${logFile})`);
  await step(
    'npm',
    ['install', '--no-audit', '--no-fund', '--loglevel=error', '--prefix', tools, PNPM],
    checkout.root,
    env,
    logFile,
    INSTALL_TIMEOUT_MS,
  );
  const pnpm = join(tools, 'node_modules/.bin/pnpm');
  // The packages' build scripts call pnpm by name.
  const pnpmEnv = { ...env, PATH: `${join(tools, 'node_modules/.bin')}:${env.PATH ?? ''}` };

  options.say('build: installing the integration tests and their workspace packages');
  await step(
    pnpm,
    [
      'install',
      '--filter',
      `${INTEGRATION_TESTS}...`,
      '--no-frozen-lockfile',
      '--ignore-scripts',
      '--store-dir',
      join(checkout.work, 'pnpm-store'),
      '--reporter',
      'append-only',
    ],
    checkout.root,
    pnpmEnv,
    logFile,
    INSTALL_TIMEOUT_MS,
  );

  options.say('build: building them');
  await step(
    pnpm,
    ['--filter', `${INTEGRATION_TESTS}...`, 'run', 'build'],
    checkout.root,
    pnpmEnv,
    logFile,
    BUILD_TIMEOUT_MS,
  );
  writeFileSync(stamp, `${JSON.stringify({ version: checkout.version, builtAt: new Date().toISOString() })}\n`);
}

async function step(
  command: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  logFile: string,
  timeoutMs: number,
): Promise<void> {
  const { code, timedOut } = await runLogged(command, args, { cwd, env, logFile, timeoutMs });
  if (timedOut) throw new Error(`${command} ${args[0]} took longer than ${timeoutMs / 60_000} min (see ${logFile})`);
  if (code !== 0) throw new Error(`${command} ${args[0]} failed with ${code} (see ${logFile})`);
}

/**
 * Points `@logto/core`'s `oidc-provider` at a tarball packed from a checkout of the fork: the GitHub dependency
 * cannot be fetched from here.
 */
function installPackedFork(checkout: Checkout, forkPath: string | undefined, say: (line: string) => void): void {
  const coreManifest = join(checkout.root, 'packages/core/package.json');
  const core = readJson(coreManifest);
  const dependencies = core.dependencies as Record<string, string>;
  const spec = dependencies['oidc-provider'] ?? '';
  if (spec.startsWith('file:')) return;
  if (!forkPath) {
    throw new Error(
      `packages/core/package.json depends on oidc-provider ${spec}: pass a checkout of that repository and commit with --oidc-provider <dir>`,
    );
  }
  const fork = resolve(forkPath);
  if (readJson(join(fork, 'package.json')).name !== 'oidc-provider')
    throw new Error(`${fork} is not a checkout of node-oidc-provider`);
  const commit = /#([0-9a-f]{7,40})$/.exec(spec)?.[1];
  say(`build: packing the oidc-provider fork from ${fork}${commit ? ` (Logto names commit ${commit})` : ''}`);
  // The package ships its sources (`files: ["lib"]`): nothing to build before packing.
  const packed = spawnSync('npm', ['pack', '--silent', '--pack-destination', checkout.work], {
    cwd: fork,
    encoding: 'utf8',
    timeout: 120_000,
  });
  const name = packed.stdout?.trim().split('\n').pop();
  if (packed.status !== 0 || !name) throw new Error(`npm pack in ${fork} failed: ${packed.stderr}`);
  dependencies['oidc-provider'] = `file:${join(checkout.work, name)}`;
  writeJson(coreManifest, core);
}

/** `@logto/cloud` is not published; the packages that name it (console, core, a connector) are not built here. */
function dropCloudDependency(manifest: string): void {
  const json = readJson(manifest);
  let changed = false;
  for (const field of ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies']) {
    const dependencies = json[field] as Record<string, string> | undefined;
    if (dependencies && '@logto/cloud' in dependencies) {
      delete dependencies['@logto/cloud'];
      changed = true;
    }
  }
  if (changed) writeJson(manifest, json);
}

/** package.json of every workspace package (`packages/*`, `packages/toolkit/*`, `packages/connectors/*`). */
function workspaceManifests(root: string): string[] {
  const manifests: string[] = [];
  for (const parent of ['packages', 'packages/toolkit', 'packages/connectors']) {
    for (const entry of readdirSync(join(root, parent), { withFileTypes: true })) {
      const manifest = join(root, parent, entry.name, 'package.json');
      if (entry.isDirectory() && existsSync(manifest)) manifests.push(manifest);
    }
  }
  return manifests;
}

function readJson(file: string): Record<string, unknown> {
  return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
}

function writeJson(file: string, json: unknown): void {
  writeFileSync(file, `${JSON.stringify(json, null, 2)}\n`);
}
