import { fileURLToPath } from 'node:url';
import { stealSince } from './load.ts';
import { runTokenBench } from './tokens.ts';
import { runWebhookBench } from './webhooks.ts';
import { runStartupBench } from './startup.ts';
import { runEventsBench } from './events.ts';
import { renderTable, SCALE_MARKERS, updateReadme, type BenchResults } from './report.ts';
import { runScaleBench } from './scale.ts';
import { renderScaleTables } from './scale-report.ts';

/**
 * `npm run bench`: every figure of the measured targets from one run on this machine, each also as a ratio to a
 * plain node-oidc-provider measured in the same run. Load goes only to loopback addresses, every loop is bounded
 * in time and count, and every process started is stopped by its pid.
 * `npm run bench -- --update-readme` also writes the table into bench/README.md between its markers.
 * `npm run bench -- --scale` measures the service on stores holding a large tenant instead (bench/scale.ts); with
 * `--update-readme` its tables go into bench/README.md between their own markers.
 */
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const started = performance.now();
const startedAt = `${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`;

if (process.argv.includes('--scale')) {
  const scale = await runScaleBench();
  const tables = renderScaleTables(scale, startedAt, Math.round((performance.now() - started) / 1000));
  console.log(`\n${tables}`);
  if (process.argv.includes('--update-readme')) {
    const readme = fileURLToPath(new URL('README.md', import.meta.url));
    updateReadme(readme, tables, SCALE_MARKERS);
    console.log(`\nwrote the tables into ${readme}`);
  }
  process.exit(0);
}

console.log('client credentials, impersonation and customizer, interleaved with the plain provider …');
const tokenSteal = stealSince();
const tokens = await runTokenBench({ redisUrl });
const tokenStealPercent = tokenSteal.percent();
console.log(JSON.stringify(tokens, null, 2));

console.log('webhook deliveries end to end …');
const webhookSteal = stealSince();
const webhooks = await runWebhookBench({ redisUrl });
console.log(JSON.stringify(webhooks, null, 2));
console.log('webhook deliveries end to end on the SQLite store (its own queue, no Redis) …');
const sqliteWebhooks = await runWebhookBench({ redisUrl: null, storage: 'sqlite' });
const webhookStealPercent = webhookSteal.percent();
console.log(JSON.stringify(sqliteWebhooks, null, 2));

console.log('GET /api/events read through with cursors on the SQLite store …');
const events = await runEventsBench();
console.log(JSON.stringify(events, null, 2));

console.log('start-up of the SQLite store with 100,000 users and 1,000,000 delivery logs in its file …');
const startup = await runStartupBench();
console.log(JSON.stringify(startup, null, 2));

console.log(JSON.stringify({ stealPercent: { tokens: tokenStealPercent, webhooks: webhookStealPercent } }));

const results: BenchResults = {
  tokens,
  webhooks,
  sqliteWebhooks,
  startup,
  events,
  startedAt,
  durationSeconds: Math.round((performance.now() - started) / 1000),
  stealPercent: { tokens: tokenStealPercent, webhooks: webhookStealPercent },
};
const table = renderTable(results);
console.log(`\n${table}`);
if (process.argv.includes('--update-readme')) {
  const readme = fileURLToPath(new URL('README.md', import.meta.url));
  updateReadme(readme, table);
  console.log(`\nwrote the table into ${readme}`);
}
