/**
 * A webhook worker process for machines without MongoDB. A real worker reads hooks from the MongoDB the
 * web process writes; embedded documents cannot be shared between processes, so this one gets a copy of
 * the hook (SEEDED_HOOK, the stored record as JSON) in its own embedded store, then runs the real worker
 * (`startWebhookWorker`, what `npm run worker` runs) on the shared Redis queue, serving its `/healthz`, `/readyz`
 * and `/metrics` on WORKER_PORT when that is set, as `npm run worker` does. Delivery logs it writes stay in this
 * process; the parent checks what the receiver got.
 */
import { createServer } from 'node:http';
import { createMemoryDocumentStore } from '../../../adapters/memory/documents.ts';
import { startWebhookWorker } from '../../../app/worker.ts';
import { createHooksRepository, type HookRecord } from '../../../lib/webhooks/hooks.ts';

const documents = createMemoryDocumentStore();
await createHooksRepository(documents).insert(JSON.parse(process.env.SEEDED_HOOK!) as HookRecord);
const worker = await startWebhookWorker({ stores: { documents } });
if (process.env.WORKER_PORT) {
  const server = createServer(worker.app.callback());
  await new Promise<void>((resolve) => server.listen(Number(process.env.WORKER_PORT), '127.0.0.1', resolve));
}
// Before the ready line: the parent stops this process as soon as it reads it.
process.on('SIGTERM', () => {
  void worker.close().then(() => process.exit(0));
});
process.stdout.write(`ready: seeded webhook worker consuming ${worker.queueName}\n`);
