/**
 * `npm run backup -- <file>`: a consistent copy of the SQLite store (DATA_DIR/identity.sqlite), taken online while the
 * service serves: `VACUUM INTO` reads the database in one read transaction (WAL lets the service write meanwhile) and
 * writes a compact copy. The copy is a complete database: to restore, stop the service and put it in place of
 * `identity.sqlite` (docs/storage.md, "Backup and restore").
 */
import { closeSync, existsSync, openSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { settingsOrExit } from './lifecycle.ts';

function refuse(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

function main(): void {
  const settings = settingsOrExit(process.env);
  const target = process.argv[2];
  if (!target || process.argv.length > 3) refuse('usage: npm run backup -- <file>');
  const destination = resolve(target);
  const source = join(resolve(settings.DATA_DIR), 'identity.sqlite');
  if (!existsSync(source)) refuse(`no database to back up at ${source} (DATA_DIR=${settings.DATA_DIR})`);
  if (existsSync(destination)) refuse(`${destination} exists already: a backup never overwrites a file`);
  // Created empty and private first: VACUUM INTO writes into an empty file, which keeps its mode.
  try {
    closeSync(openSync(destination, 'wx', 0o600));
  } catch (error) {
    refuse(`cannot create ${destination}: ${(error as Error).message}`);
  }
  const database = new DatabaseSync(source, { timeout: 10_000 });
  try {
    database.prepare('VACUUM INTO ?').run(destination);
  } catch (error) {
    refuse(`cannot back up ${source}: ${(error as Error).message}`);
  } finally {
    database.close();
  }
  const copy = new DatabaseSync(destination, { readOnly: true });
  const check = String(copy.prepare('PRAGMA quick_check').get()?.quick_check);
  copy.close();
  if (check !== 'ok') refuse(`the backup ${destination} does not check out: ${check}`);
  process.stdout.write(`backed up ${source} to ${destination} (${statSync(destination).size} bytes)\n`);
}

main();
