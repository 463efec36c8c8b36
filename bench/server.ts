import { createServer } from 'node:http';
import { pino } from 'pino';
import { createIdentityService } from '../app/index.ts';
import { settleStartup } from '../lib/startup.ts';
import { seedStore, type ScaleCounts } from './seed.ts';

/**
 * The service under measurement, in its own process so that the load generator does not share its
 * event loop. Prints one JSON line with the address once it listens. `BENCH_SEED` (the scale bench's counts, as
 * JSON) has it write that data into its store first, within `BENCH_SEED_DEADLINE_MS`.
 */
const server = createServer();
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const address = server.address() as { port: number };
const baseUrl = `http://127.0.0.1:${address.port}`;
const service = await createIdentityService({
  env: { ...process.env, BASE_URL: baseUrl },
  logger: pino({ level: 'silent' }),
  print: () => {},
});
const seed = process.env.BENCH_SEED
  ? await seedStore(
      service.core.store,
      JSON.parse(process.env.BENCH_SEED) as ScaleCounts,
      Number(process.env.BENCH_SEED_DEADLINE_MS ?? 300_000),
    )
  : undefined;
// As bin/server.ts does once the service is built.
settleStartup();
server.on('request', service.app.callback());
server.keepAliveTimeout = 60_000;
// Before the line: the bench may stop the process as soon as it reads it.
process.on('SIGTERM', async () => {
  server.close();
  await service.close();
  process.exit(0);
});
process.stdout.write(`${JSON.stringify({ baseUrl, storage: service.core.store.kind, seed })}\n`);
