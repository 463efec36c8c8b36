/**
 * `npm run import -- <file>`: reads an export (transfer.ts) into the backends this configuration selects, as
 * `npm start` would open them, which must be empty. Run it with the service stopped.
 */
import { resolve } from 'node:path';
import { createLogger } from '../lib/logger.ts';
import { StoreUnavailableError } from '../lib/store-unavailable.ts';
import { openStores, type Stores } from '../app/stores.ts';
import { settingsOrExit } from './lifecycle.ts';
import { importFrom } from './transfer.ts';

const settings = settingsOrExit(process.env);
const source = process.argv[2];
if (!source || process.argv.length > 3) {
  process.stderr.write('usage: npm run import -- <file>\n');
  process.exit(2);
}
if (settings.storage === 'memory' && (!settings.MONGODB_URI || !settings.REDIS_URL)) {
  process.stderr.write(
    'STORAGE=memory keeps nothing after the import ends: import into SQLite, or MongoDB and Redis\n',
  );
  process.exit(2);
}
if (settings.REDIS_URL && settings.webhookQueue.private) {
  process.stderr.write(
    'set WEBHOOK_QUEUE_NAME to the queue the service will consume: the pending deliveries go there\n',
  );
  process.exit(2);
}
let stores: Stores;
try {
  stores = await openStores(settings, createLogger('warn'), {}, { requireReachable: true });
} catch (error) {
  if (!(error instanceof StoreUnavailableError)) throw error;
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
}
try {
  const counts = await importFrom(resolve(source), stores);
  process.stdout.write(
    `imported ${counts.documents} documents, ${counts.keys} keys and ${counts.deliveries} pending deliveries from ${resolve(source)}\n`,
  );
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exitCode = 1;
} finally {
  await stores.close();
}
