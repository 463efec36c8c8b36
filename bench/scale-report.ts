import type { ScaleBenchResult, ScaleStorageResult } from './scale.ts';

const int = (value: number) => Math.round(value).toLocaleString('en-US');
const verdict = (met: boolean) => (met ? 'met' : '**missed**');
/** The password hash of lib/users/passwords.ts, which a sign-in computes once. */
const KDF = 'scrypt N=2¹⁵, r=8, p=1';

/** Read targets: every listed read at the bench's concurrency. */
const READ_P99_MS = 50;
const TOKEN_RATIO = 0.9;
const SIGN_IN_P99_MS = 150;
const READY_SECONDS = 10;
const RSS_MB = 600;

const READ_LABELS: Record<string, string> = {
  usersSearch: '`GET /api/users?search=%ser4711%` (11 users match)',
  usersDeepPage: '`GET /api/users?page=…` four fifths in, with `Total-Number`',
  organizationUsers: '`GET /api/organizations/:id/users` (5 members)',
  hookRecentLogs: '`GET /api/hooks/:id/recent-logs` (a hook with a twentieth of the logs)',
  impersonationLogs: '`GET /api/impersonation-logs?userId=…` (5 records of the user)',
};

type Size = 'empty' | 'seeded';
type Workloads = ScaleStorageResult['workloads'];
type Figures = Workloads[keyof Workloads]['empty'];

const STORE_NAMES: Record<string, string> = {
  sqlite: 'SQLite (default, FULL)',
  memory: 'in memory (`STORAGE=memory`)',
};

function what(result: ScaleStorageResult): string {
  const { counts } = result.seed;
  return (
    `${int(counts.users)} users (email, name, custom data, one of ${int(counts.roles)} roles each), ${int(counts.organizations)} ` +
    `organizations × ${counts.membersPerOrganization} members, ${int(counts.deliveryLogs)} delivery logs over ${counts.hooks} hooks, ` +
    `${int(counts.auditRecords)} impersonation audit records (${int(result.seed.documents)} documents` +
    `${result.fileMb === undefined ? '' : `; the SQLite file ${int(result.fileMb)} MB`})`
  );
}

/**
 * One data size's figures on every store, a column per store; on the seeded store each figure also as a ratio to the
 * empty store in the same run, with the targets of issue #40 (which apply to the seeded store).
 */
function renderSizeTable(size: Size, results: readonly ScaleStorageResult[]): string {
  const seeded = size === 'seeded';
  const ratio = (workloads: Workloads, name: keyof Workloads) =>
    seeded ? `; ${workloads[name].rateRatio}× (CPU ${workloads[name].cpuRatio}×)` : '';
  const cells = (cell: (result: ScaleStorageResult) => string) => results.map(cell);
  const targets = (label: string, met: (result: ScaleStorageResult) => boolean | undefined) => {
    if (!seeded) return label;
    const verdicts = results.map((result) => met(result)).map((value) => (value === undefined ? '—' : verdict(value)));
    return `${label}: ${verdicts.join(' / ')}`;
  };
  const latency = (figures: Figures) => `${figures.p50Ms} / ${figures.p99Ms} ms, ${int(figures.perSecond)}/s`;
  const rate = (figures: Figures) =>
    `${int(figures.perSecond)}/s (${int(figures.cpuUs)} µs CPU), p99 ${figures.p99Ms} ms`;
  const rows: string[][] = [];
  for (const [name, label] of Object.entries(READ_LABELS)) {
    const key = name as keyof Workloads;
    rows.push([
      `${label}, p50 / p99`,
      ...cells((result) => `${latency(result.workloads[key][size])}${ratio(result.workloads, key)}`),
      targets(`p99 ≤ ${READ_P99_MS} ms`, (result) => result.workloads[key].seeded.p99Ms <= READ_P99_MS),
    ]);
  }
  for (const [name, label] of [
    ['clientCredentials', 'client credentials'],
    ['impersonation', 'impersonation (subject token + exchange)'],
  ] as const) {
    rows.push([
      label,
      ...cells((result) => `${rate(result.workloads[name][size])}${ratio(result.workloads, name)}`),
      targets(
        `≥ ${TOKEN_RATIO}× empty`,
        (result) => result.workloads[name].rateRatio >= TOKEN_RATIO && result.workloads[name].cpuRatio >= TOKEN_RATIO,
      ),
    ]);
  }
  rows.push([
    `password sign-in (Experience API, authorization request to tokens; ${KDF}), one at a time, p50 / p99 (the password request)`,
    ...cells((result) => {
      const signIn = result.workloads.signIn[size];
      const password = result.passwordVerificationMs[size];
      return `${signIn.p50Ms} / ${signIn.p99Ms} ms (${password.p50} / ${password.p99} ms)`;
    }),
    targets(`p99 ≤ ${SIGN_IN_P99_MS} ms`, (result) => result.workloads.signIn.seeded.p99Ms <= SIGN_IN_P99_MS),
  ]);
  rows.push([
    'webhook fan-out, 4 hooks per event, deliveries end to end',
    ...cells(
      (result) =>
        `${int(result.webhookFanOut[size])}/s${
          seeded && result.webhookFanOut.empty > 0
            ? `; ${(result.webhookFanOut.seeded / result.webhookFanOut.empty).toFixed(2)}×`
            : ''
        }`,
    ),
    '—',
  ]);
  rows.push([
    seeded
      ? 'start-up to ready (SQLite: a restart on the seeded file; in memory: seeding included)'
      : 'start-up to ready',
    ...cells(
      (result) =>
        `${result.readySeconds[size]} s${seeded && result.storage === 'memory' ? ` (seeding ${result.seed.seconds} s)` : ''}`,
    ),
    targets(`≤ ${READY_SECONDS} s`, (result) =>
      result.storage === 'sqlite' ? result.readySeconds.seeded <= READY_SECONDS : undefined,
    ),
  ]);
  rows.push([
    'RSS idle / peak',
    ...cells((result) => `${result.rssMb.idle[size]} / ${result.rssMb.peak[size]} MB`),
    targets(`≤ ${RSS_MB} MB`, (result) => result.rssMb.peak.seeded <= RSS_MB),
  ]);
  return [
    seeded
      ? `**A tenant's worth of data**: ${what(results[0]!)}.`
      : "**Empty store** (what the service itself creates, and the bench's fixtures).",
    '',
    // The targets are the seeded store's; the empty one is what they are measured against.
    `| Figure | ${results.map((result) => STORE_NAMES[result.storage] ?? result.storage).join(' | ')} |${seeded ? ' Target (per store) |' : ''}`,
    `|---|${results.map(() => '---|').join('')}${seeded ? '---|' : ''}`,
    ...rows.map((row) => `| ${(seeded ? row : row.slice(0, -1)).join(' | ')} |`),
  ].join('\n');
}

/** A table per data size of one scale run, with how it was run. */
export function renderScaleTables(result: ScaleBenchResult, startedAt: string, durationSeconds: number): string {
  const { settings } = result;
  const errors = result.results.flatMap((storage) =>
    Object.entries(storage.workloads).flatMap(([name, figures]) =>
      (['empty', 'seeded'] as const)
        .filter((size) => figures[size].errors > 0)
        .map((size) => `${figures[size].errors} (${name}, ${storage.storage}, ${size})`),
    ),
  );
  return [
    renderSizeTable('empty', result.results),
    renderSizeTable('seeded', result.results),
    `One run of ${durationSeconds} s started ${startedAt}: ${settings.rounds} interleaved rounds of ${settings.phaseMs / 1000} s per ` +
      `workload, the empty and the seeded service alternating, reads and tokens at ${settings.concurrency} requests in flight ` +
      '(latencies pooled over the rounds; a ratio is the median of the seeded/empty ratios within each round, of the rates and ' +
      `of the CPU time per request; a token target is met when both are), every process on loopback; failed requests: ${
        errors.length ? errors.join(', ') : 'none'
      }.`,
  ].join('\n\n');
}
