import type { ScaleBenchResult, ScaleStorageResult } from './scale.ts';

const int = (value: number) => Math.round(value).toLocaleString('en-US');
const verdict = (met: boolean, target: string) => (met ? `${target} (met)` : `${target} (**missed**)`);
/** The password hash of lib/users/passwords.ts, which a sign-in computes once. */
const KDF = 'scrypt N=2¹⁵, r=8, p=1';

/** Read targets: every listed read at the bench's concurrency. */
const READ_P99_MS = 50;
const TOKEN_RATIO = 0.9;
const SIGN_IN_P99_MS = 150;
const READY_SECONDS = 10;
const RSS_MB = 600;

const READ_LABELS: Record<string, string> = {
  usersSearch: '`GET /api/users?search=%ser4711%` (11 of the users match)',
  usersDeepPage: '`GET /api/users?page=…` four fifths in, with `Total-Number`',
  organizationUsers: '`GET /api/organizations/:id/users` (5 members)',
  hookRecentLogs: '`GET /api/hooks/:id/recent-logs` (a hook with a twentieth of the logs)',
  impersonationLogs: '`GET /api/impersonation-logs?userId=…` (5 records of the user)',
};

function what(result: ScaleStorageResult): string {
  const { counts } = result.seed;
  return `${int(counts.users)} users (email, name, custom data, one of ${int(counts.roles)} roles each), ${int(counts.organizations)} `
    + `organizations × ${counts.membersPerOrganization} members, ${int(counts.deliveryLogs)} delivery logs over ${counts.hooks} hooks, `
    + `${int(counts.auditRecords)} impersonation audit records`;
}

/** One store's figures, empty against seeded, with ratios and targets, as a Markdown table. */
export function renderStorageTable(result: ScaleStorageResult, concurrency: number, signInConcurrency: number): string {
  const { workloads } = result;
  const latency = (figures: { p50Ms: number; p99Ms: number; perSecond: number }) =>
    `${figures.p50Ms} / ${figures.p99Ms} ms, ${int(figures.perSecond)}/s`;
  const rate = (figures: { perSecond: number; cpuUs: number; p99Ms: number }) =>
    `${int(figures.perSecond)}/s (${int(figures.cpuUs)} µs CPU), p99 ${figures.p99Ms} ms`;
  const both = (name: keyof typeof workloads) => `${workloads[name].rateRatio} (CPU ${workloads[name].cpuRatio})`;
  const rows: string[][] = [];
  for (const [name, label] of Object.entries(READ_LABELS)) {
    const figures = workloads[name as keyof typeof workloads];
    rows.push([`${label}, p50 / p99`, latency(figures.empty), latency(figures.seeded), both(name as keyof typeof workloads),
      verdict(figures.seeded.p99Ms <= READ_P99_MS, `p99 ≤ ${READ_P99_MS} ms`)]);
  }
  for (const [name, label] of [['clientCredentials', 'client credentials'], ['impersonation', 'impersonation (subject token + exchange)']] as const) {
    const figures = workloads[name];
    rows.push([label, rate(figures.empty), rate(figures.seeded), both(name),
      verdict(figures.rateRatio >= TOKEN_RATIO && figures.cpuRatio >= TOKEN_RATIO, `≥ ${TOKEN_RATIO}× empty`)]);
  }
  const signIn = workloads.signIn;
  const password = result.passwordVerificationMs;
  rows.push([
    `password sign-in through the Experience API, authorization request to tokens (${KDF}), ${signInConcurrency} at a time, p50 / p99`,
    `${signIn.empty.p50Ms} / ${signIn.empty.p99Ms} ms (the password request ${password.empty.p50} / ${password.empty.p99} ms)`,
    `${signIn.seeded.p50Ms} / ${signIn.seeded.p99Ms} ms (the password request ${password.seeded.p50} / ${password.seeded.p99} ms)`,
    both('signIn'), verdict(signIn.seeded.p99Ms <= SIGN_IN_P99_MS, `p99 ≤ ${SIGN_IN_P99_MS} ms`),
  ]);
  const fanOut = result.webhookFanOut;
  rows.push(['webhook fan-out, 4 hooks per event, deliveries end to end', `${int(fanOut.empty)}/s`, `${int(fanOut.seeded)}/s`,
    fanOut.empty > 0 ? (fanOut.seeded / fanOut.empty).toFixed(2) : 'n/a', '—']);
  const ready = result.readySeconds;
  rows.push([
    result.storage === 'sqlite' ? 'start-up to ready (a restart on the seeded file)' : 'start-up to ready (the in-memory store seeds in its own start)',
    `${ready.empty} s`, `${ready.seeded} s (seeding ${result.seed.seconds} s${result.fileMb === undefined ? '' : `; file ${int(result.fileMb)} MB`})`,
    (ready.seeded / ready.empty).toFixed(2),
    result.storage === 'sqlite' ? verdict(ready.seeded <= READY_SECONDS, `≤ ${READY_SECONDS} s`) : '—',
  ]);
  const rss = result.rssMb;
  rows.push(['RSS idle / peak', `${rss.idle.empty} / ${rss.peak.empty} MB`, `${rss.idle.seeded} / ${rss.peak.seeded} MB`,
    (rss.peak.seeded / rss.peak.empty).toFixed(2), verdict(rss.peak.seeded <= RSS_MB, `≤ ${RSS_MB} MB`)]);
  const errors = Object.entries(workloads).flatMap(([name, figures]) => [
    ...(figures.empty.errors ? [`${figures.empty.errors} (${name}, empty)`] : []),
    ...(figures.seeded.errors ? [`${figures.seeded.errors} (${name}, seeded)`] : []),
  ]);
  return [
    `**${result.storage === 'sqlite' ? 'SQLite store (the default, SQLITE_SYNCHRONOUS=FULL)' : 'In-memory store (STORAGE=memory)'}**, `
      + `seeded with ${what(result)}: ${int(result.seed.documents)} documents.`,
    '',
    '| Figure | Empty store | Seeded store | Seeded / empty | Target |',
    '|---|---|---|---|---|',
    ...rows.map((row) => `| ${row.join(' | ')} |`),
    '',
    `Reads and tokens at ${concurrency} requests in flight; failed requests: ${errors.length ? errors.join(', ') : 'none'}.`,
  ].join('\n');
}

/** Every store's table of one scale run, with how it was run. */
export function renderScaleTables(result: ScaleBenchResult, startedAt: string, durationSeconds: number): string {
  const { settings } = result;
  return [
    ...result.results.map((storage) => renderStorageTable(storage, settings.concurrency, settings.signInConcurrency)),
    `One run of ${durationSeconds} s started ${startedAt}: ${settings.rounds} interleaved rounds of ${settings.phaseMs / 1000} s per `
      + 'workload and service (latencies pooled over the rounds; ratios are medians of the ratios within each round, of the rates '
      + 'and, in parentheses, of the CPU time per request), every process on loopback.',
  ].join('\n\n');
}
