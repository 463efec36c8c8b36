import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Checkout } from './build.ts';
import { runLogged } from './processes.ts';

const JEST_SETUP = fileURLToPath(new URL('./jest-setup.mjs', import.meta.url));
const API_SUITES = 'lib/tests/api';

/** One test as Jest's JSON report gives it. */
export interface JestAssertion {
  fullName: string;
  status: 'passed' | 'failed' | 'pending' | 'skipped' | 'todo' | 'disabled';
  failureMessages: string[];
}

/** One request a suite made, as the Jest setup logged it. */
export interface LoggedRequest {
  test: string | null;
  method: string;
  path: string;
  at: number;
  status?: number;
  /** A redirect's `location`. */
  location?: string;
  /** The error code and message of a refusal. */
  code?: string;
  message?: string;
  /** Why no answer came (a network error). */
  error?: string;
}

export interface SuiteOutcome {
  /** Path under `lib/tests/api`, e.g. `oidc/refresh-token-grant.test.js`. */
  name: string;
  /** `failed` also when the suite itself could not run (its message says why); `timeout`: ended at its bound. */
  status: 'passed' | 'failed' | 'timeout';
  passed: number;
  failed: number;
  skipped: number;
  durationMs: number;
  assertions: JestAssertion[];
  /** Jest's message for the suite as a whole (an error outside any test). */
  suiteMessage?: string;
  requests: LoggedRequest[];
}

/** Logto's API suites, in a stable order, narrowed to those whose path contains one of `filters`. */
export function listSuites(checkout: Checkout, filters: string[]): string[] {
  const root = join(checkout.tests, API_SUITES);
  const suites = readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.test.js'))
    .sort();
  return filters.length === 0 ? suites : suites.filter((suite) => filters.some((filter) => suite.includes(filter)));
}

/**
 * Writes the Jest configuration the suites run with: Logto's own, with the setup of this run loaded first (it
 * swaps the development header for the management token and logs every request).
 */
export function writeJestConfig(checkout: Checkout): string {
  const file = join(checkout.work, 'jest.config.mjs');
  writeFileSync(
    file,
    [
      `import base from ${JSON.stringify(join(checkout.tests, 'jest.config.js'))};`,
      'export default {',
      '  ...base,',
      `  rootDir: ${JSON.stringify(checkout.tests)},`,
      `  setupFilesAfterEnv: [${JSON.stringify(JEST_SETUP)}, ...base.setupFilesAfterEnv],`,
      '};',
      '',
    ].join('\n'),
  );
  return file;
}

/** Runs one suite in its own Jest process (in band, as Logto's CI does), ended when it outlives `timeoutMs`. */
export async function runSuite(
  checkout: Checkout,
  suite: string,
  options: { config: string; baseUrl: string; token: string; results: string; timeoutMs: number },
): Promise<SuiteOutcome> {
  const stem = suite.replaceAll('/', '__').replace(/\.test\.js$/, '');
  const report = join(options.results, `${stem}.jest.json`);
  const requestLog = join(options.results, `${stem}.requests.ndjson`);
  rmSync(report, { force: true });
  rmSync(requestLog, { force: true });
  const jest = join(checkout.tests, 'node_modules/jest/bin/jest.js');
  const started = Date.now();
  const { timedOut } = await runLogged(
    process.execPath,
    [
      jest,
      '--config',
      options.config,
      '--runInBand',
      '--json',
      '--outputFile',
      report,
      '--ci',
      '--forceExit',
      join(API_SUITES, suite),
    ],
    {
      cwd: checkout.tests,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        NODE_OPTIONS: '--experimental-vm-modules --no-warnings',
        INTEGRATION_TESTS_LOGTO_URL: options.baseUrl,
        // Logto's admin tenant is another port there; here the one service plays both.
        INTEGRATION_TESTS_LOGTO_CONSOLE_URL: options.baseUrl,
        INTEGRATION_TESTS_LOGTO_CLOUD_URL: options.baseUrl,
        LOGTO_SUITES_TOKEN: options.token,
        LOGTO_SUITES_REQUEST_LOG: requestLog,
      },
      logFile: join(options.results, `${stem}.log`),
      timeoutMs: options.timeoutMs,
    },
  );
  const durationMs = Date.now() - started;
  const requests = readRequests(requestLog);
  if (timedOut || !existsSync(report)) {
    return {
      name: suite,
      status: 'timeout',
      passed: 0,
      failed: 0,
      skipped: 0,
      durationMs,
      assertions: [],
      requests,
      suiteMessage: timedOut
        ? `ended after ${options.timeoutMs / 1000} s`
        : `Jest wrote no report (see ${relative(checkout.root, join(options.results, `${stem}.log`))})`,
    };
  }
  const json = JSON.parse(readFileSync(report, 'utf8')) as {
    numPassedTests: number;
    numFailedTests: number;
    numPendingTests: number;
    numTodoTests: number;
    testResults: { message: string; assertionResults: JestAssertion[] }[];
  };
  const result = json.testResults[0];
  const assertions = result?.assertionResults ?? [];
  // With tests, Jest's message repeats their failures; without, it is why the suite could not run.
  const suiteMessage = assertions.length === 0 ? result?.message?.trim() || undefined : undefined;
  const failed = json.numFailedTests;
  return {
    name: suite,
    // A suite that could not run (an import failed, a hook outside any test threw) counts no test.
    status: failed > 0 || suiteMessage !== undefined ? 'failed' : 'passed',
    passed: json.numPassedTests,
    failed,
    skipped: json.numPendingTests + json.numTodoTests,
    durationMs,
    assertions,
    ...(suiteMessage ? { suiteMessage } : {}),
    requests,
  };
}

function readRequests(file: string): LoggedRequest[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as LoggedRequest);
}
