import { runTokenExchangeBench } from './token-exchange.ts';
import { runWebhookBench } from './webhooks.ts';

/**
 * `npm run bench`: every figure of the measured targets, from one run on this machine. Load goes only to
 * loopback addresses and every loop is bounded in time and count.
 */
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const results: Record<string, unknown> = {};

console.log('token exchange vs client credentials (embedded storage) …');
results.tokenExchangeEmbedded = await runTokenExchangeBench();
console.log(results.tokenExchangeEmbedded);

console.log('token exchange vs client credentials (Redis for subject tokens) …');
results.tokenExchangeRedis = await runTokenExchangeBench({ redisUrl });
console.log(results.tokenExchangeRedis);

console.log('webhook deliveries end to end …');
results.webhooks = await runWebhookBench();
console.log(results.webhooks);

console.log(JSON.stringify(results, null, 2));
