/**
 * Runs Logto's own API integration suites (packages/integration-tests of a Logto checkout, v1.37.1) against this
 * service and reports, per suite, how many tests pass, plus a JSON summary of every failing test.
 *
 *   npm run logto-suites -- <logto checkout> [--oidc-provider <fork checkout>] [--suite <text>]...
 *     [--suite-timeout <s>] [--timeout <s>] [--storage memory|sqlite] [--rebuild] [--json]
 *
 * Everything it creates stays in `<checkout>/.logto-suites` (pnpm, its store, logs, results).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { buildCheckout, openCheckout } from './build.ts';
import { failuresOf, type Failure } from './failures.ts';
import { provision } from './provision.ts';
import { startService, type RunningService, type Storage } from './service.ts';
import { listSuites, runSuite, writeJestConfig, type SuiteOutcome } from './suites.ts';

const USAGE =
  'usage: npm run logto-suites -- <logto checkout> [--oidc-provider <dir>] [--suite <text>]... [--suite-timeout <s>] [--timeout <s>] [--storage memory|sqlite] [--rebuild] [--json]';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    'oidc-provider': { type: 'string' },
    suite: { type: 'string', multiple: true, default: [] },
    'suite-timeout': { type: 'string', default: '300' },
    timeout: { type: 'string', default: '5400' },
    storage: { type: 'string', default: 'memory' },
    rebuild: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
  },
});

const [checkoutPath] = positionals;
const suiteTimeoutMs = seconds(values['suite-timeout'], 'suite-timeout');
const totalTimeoutMs = seconds(values.timeout, 'timeout');
if (!checkoutPath || positionals.length > 1) exit(USAGE);
if (values.storage !== 'memory' && values.storage !== 'sqlite') exit(`--storage is memory or sqlite\n${USAGE}`);
const storage: Storage = values.storage;

// The table goes to stderr when the JSON goes to stdout.
const say = (line: string): void => void (values.json ? process.stderr : process.stdout).write(`${line}\n`);
const deadline = Date.now() + totalTimeoutMs;
const startedAt = new Date();
const checkout = openCheckout(checkoutPath);
const results = join(checkout.work, 'results');
mkdirSync(results, { recursive: true });

await buildCheckout(checkout, { oidcProvider: values['oidc-provider'], rebuild: values.rebuild, say });
const suites = listSuites(checkout, values.suite);
if (suites.length === 0) exit(`no API suite matches ${values.suite.join(', ')}`);
const config = writeJestConfig(checkout);

let service: RunningService | undefined;
const stopService = async (): Promise<void> => {
  await service?.stop();
  service = undefined;
};
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void stopService().finally(() => process.exit(130)));
}
const serviceLog = join(results, 'service.log');
const serviceRestarts: string[] = [];
/** The service is started once and kept for every suite, as Logto's suites share one database; restarted only if it died. */
const running = async (): Promise<RunningService> => {
  if (service?.alive()) return service;
  if (service) await stopService();
  service = await startService({ storage, logFile: serviceLog });
  await provision(service);
  return service;
};

const outcomes: SuiteOutcome[] = [];
const notRun: string[] = [];
say(
  `Logto ${checkout.version}: ${suites.length} API suites against this service (${storage}); each bounded to ${suiteTimeoutMs / 1000} s, all to ${totalTimeoutMs / 1000} s`,
);
say('passed failed skipped    time  suite');
try {
  for (const suite of suites) {
    const left = deadline - Date.now();
    if (left < 10_000) {
      notRun.push(suite);
      continue;
    }
    const target = await running();
    const outcome = await runSuite(checkout, suite, {
      config,
      baseUrl: target.baseUrl,
      token: await target.managementToken(),
      results,
      timeoutMs: Math.min(suiteTimeoutMs, left),
    });
    if (!target.alive()) {
      serviceRestarts.push(suite);
      outcome.suiteMessage = `${outcome.suiteMessage ? `${outcome.suiteMessage} | ` : ''}the service exited during this suite (see ${serviceLog})`;
    }
    outcomes.push(outcome);
    say(
      `${pad(outcome.passed, 6)} ${pad(outcome.failed, 6)} ${pad(outcome.skipped, 7)} ${pad(`${(outcome.durationMs / 1000).toFixed(1)}s`, 7)}  ${outcome.name}${outcome.status === 'timeout' ? ' (timed out)' : outcome.status === 'failed' && outcome.failed === 0 ? ' (could not run)' : ''}`,
    );
  }
} finally {
  await stopService();
}

const failures: Failure[] = outcomes.flatMap((outcome) => failuresOf(outcome, checkout.tests));
const totals = {
  suites: suites.length,
  suitesPassed: outcomes.filter((outcome) => outcome.status === 'passed').length,
  suitesFailed: outcomes.filter((outcome) => outcome.status === 'failed').length,
  suitesTimedOut: outcomes.filter((outcome) => outcome.status === 'timeout').length,
  suitesNotRun: notRun.length,
  passed: sum(outcomes, 'passed'),
  failed: sum(outcomes, 'failed'),
  skipped: sum(outcomes, 'skipped'),
};
const summary = {
  logtoVersion: checkout.version,
  storage,
  startedAt: startedAt.toISOString(),
  finishedAt: new Date().toISOString(),
  totals,
  suites: outcomes.map(({ name, status, passed, failed, skipped, durationMs, suiteMessage }) => ({
    name,
    status,
    passed,
    failed,
    skipped,
    durationMs,
    ...(suiteMessage ? { message: suiteMessage } : {}),
  })),
  notRun,
  serviceRestarts,
  failures,
};
const summaryFile = join(results, 'summary.json');
writeFileSync(summaryFile, `${JSON.stringify(summary, null, 2)}\n`);
say(
  `total: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped; suites: ${totals.suitesPassed} passed, ${totals.suitesFailed} failed, ${totals.suitesTimedOut} timed out, ${totals.suitesNotRun} not run (time bound)`,
);
say(`failures (JSON): ${summaryFile}`);
if (values.json) process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);

function seconds(value: string, name: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 10) exit(`--${name} takes whole seconds, at least 10\n${USAGE}`);
  return parsed * 1000;
}

function pad(value: number | string, width: number): string {
  return String(value).padStart(width);
}

function sum(list: SuiteOutcome[], field: 'passed' | 'failed' | 'skipped'): number {
  return list.reduce((total, outcome) => total + outcome[field], 0);
}

function exit(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}
