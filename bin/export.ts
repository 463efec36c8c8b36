/** `npm run export -- <file>`: every document, key and pending delivery of the configured backends, as NDJSON (transfer.ts). */
import { resolve } from 'node:path';
import { settingsOrExit } from './lifecycle.ts';
import { exportTo } from './transfer.ts';

const settings = settingsOrExit(process.env);
const target = process.argv[2];
if (!target || process.argv.length > 3) {
  process.stderr.write('usage: npm run export -- <file>\n');
  process.exit(2);
}
try {
  const counts = await exportTo(settings, resolve(target));
  process.stdout.write(
    `exported ${counts.documents} documents, ${counts.keys} keys and ${counts.deliveries} pending deliveries to ${resolve(target)}\n`,
  );
} catch (error) {
  const code = (error as NodeJS.ErrnoException).code;
  process.stderr.write(
    `${code === 'EEXIST' ? `${resolve(target)} exists already: an export never overwrites a file` : (error as Error).message}\n`,
  );
  process.exit(1);
}
