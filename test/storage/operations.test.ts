/**
 * Operating the SQLite store with the real entry points: a fresh start creates the data directory and serves; one
 * process holds a directory; production runs on it and refuses memory; files that cannot be used are refused with one
 * line; two processes with local documents cannot share a Redis; an online backup is a working database.
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { PrivateRedis, redisServerInstalled } from '../support/redis-server.ts';
import { freePort } from '../support/processes.ts';
import { tempDataDir } from '../support/sqlite.ts';
import { ServerProcess, runScript } from '../support/storage/server.ts';

const ROOT = new URL('../..', import.meta.url).pathname;

/** The server run to its end from `cwd`, with nothing but `env`: exit code and what it printed. */
async function startToEnd(env: Record<string, string>, cwd?: string) {
  const port = await freePort();
  return runScript(
    join(ROOT, 'bin/server.ts'),
    [],
    { PATH: process.env.PATH ?? '', PORT: String(port), LOG_LEVEL: 'warn', ...env },
    cwd,
  );
}

describe('SQLite store: operating it', function () {
  this.timeout(60_000);
  const dirs: string[] = [];
  const servers: ServerProcess[] = [];
  const dir = () => {
    const made = tempDataDir('identity-ops-');
    dirs.push(made);
    return made;
  };
  const server = async (dataDir: string, env: Record<string, string> = {}) => {
    const started = await ServerProcess.on(dataDir, env);
    servers.push(started);
    return started;
  };
  after(async () => {
    for (const running of servers) await running.close();
    for (const made of dirs) {
      spawnSync('chattr', ['-i', join(made, 'identity.sqlite')], { stdio: 'ignore' });
      rmSync(made, { recursive: true, force: true });
    }
  });

  it('creates ./data (0700) holding identity.sqlite (0600) on a fresh start, and serves', async () => {
    const cwd = dir();
    const fresh = await ServerProcess.on('./data', { DATA_DIR: '' });
    servers.push(fresh);
    await fresh.start(cwd);
    expect(statSync(join(cwd, 'data')).mode & 0o777).to.equal(0o700);
    expect(statSync(join(cwd, 'data', 'identity.sqlite')).mode & 0o777).to.equal(0o600);
    expect((await fresh.request('/api/applications')).status).to.equal(200);
  });

  it('refuses a second process on the same DATA_DIR, naming the one that holds it', async () => {
    const dataDir = dir();
    const first = await server(dataDir);
    await first.start();
    const second = await startToEnd({ DATA_DIR: dataDir });
    expect(second.code).to.equal(1);
    expect(second.stderr.trim()).to.equal(
      `cannot start: DATA_DIR ${dataDir} is in use by process ${first.pid} on ${readFileSync(join(dataDir, 'lock.owner'), 'utf8').split(' on ')[1]!.trim()}: ` +
        'only one process may hold it (stop it, or give this one another DATA_DIR)',
    );
  });

  it('runs NODE_ENV=production on SQLite without any override, and refuses STORAGE=memory there', async () => {
    const dataDir = dir();
    const production = await server(dataDir, { NODE_ENV: 'production' });
    await production.start();
    expect(existsSync(join(dataDir, 'identity.sqlite'))).to.equal(true);
    const memory = await startToEnd({ NODE_ENV: 'production', STORAGE: 'memory', DATA_DIR: dir() });
    expect(memory.code).to.equal(2);
    expect(memory.stderr).to.match(/^STORAGE=memory is refused with NODE_ENV=production/);
  });

  it('refuses a SQLITE_SYNCHRONOUS other than FULL or NORMAL', async () => {
    const refused = await startToEnd({ SQLITE_SYNCHRONOUS: 'OFF', DATA_DIR: dir() });
    expect(refused.code).to.equal(2);
    expect(refused.stderr).to.match(/SQLITE_SYNCHRONOUS: .*"FULL" \| "NORMAL"|SQLITE_SYNCHRONOUS: .*FULL.*NORMAL/);
  });

  it('refuses a file that is not a database, a corrupt one and an unwritable one with one line naming it, and writes nothing', async () => {
    const garbage = dir();
    const path = join(garbage, 'identity.sqlite');
    writeFileSync(path, 'not a database at all, just text long enough to be mistaken for a header '.repeat(10), {
      mode: 0o600,
    });
    const notDatabase = await startToEnd({ DATA_DIR: garbage });
    expect(notDatabase.code).to.equal(1);
    expect(notDatabase.stderr.trim()).to.equal(
      `cannot start: cannot use the database ${path}: it is not a SQLite database`,
    );

    // A database the service wrote, with its document pages overwritten.
    const damaged = dir();
    const written = await server(damaged);
    await written.start();
    for (let i = 0; i < 30; i += 1) {
      await written.request('/api/users', {
        method: 'POST',
        json: { username: `corrupt_${i}`, name: 'x'.repeat(2000) },
      });
    }
    await written.kill();
    const file = join(damaged, 'identity.sqlite');
    const checkpoint = new DatabaseSync(file);
    checkpoint.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    checkpoint.close();
    const bytes = readFileSync(file);
    bytes.fill(0x5a, 4096 * 2, bytes.length - 4096);
    writeFileSync(file, bytes);
    const before = readFileSync(file);
    const corrupt = await startToEnd({ DATA_DIR: damaged });
    expect(corrupt.code).to.equal(1);
    expect(corrupt.stderr.trim().split('\n')).to.have.length(1);
    expect(corrupt.stderr).to.match(
      new RegExp(`^cannot start: cannot (use|read) the database ${file}: .*(corrupt|malformed)`),
    );
    expect(readFileSync(file).equals(before), 'nothing written').to.equal(true);

    const locked = dir();
    const fresh = await server(locked);
    await fresh.start();
    await fresh.kill();
    const readOnly = join(locked, 'identity.sqlite');
    // As root, permissions do not stop a write: the immutable attribute does, where the filesystem has it.
    let immutable = true;
    if (process.getuid?.() === 0) immutable = spawnSync('chattr', ['+i', readOnly]).status === 0;
    else chmodSync(readOnly, 0o400);
    if (!immutable) return;
    const unwritable = await startToEnd({ DATA_DIR: locked });
    expect(unwritable.code).to.equal(1);
    expect(unwritable.stderr.trim()).to.match(
      new RegExp(`^cannot start: cannot use the database ${readOnly}: it is not writable`),
    );
  });

  it('refuses a second process with local documents on the same Redis, and lets the same data directory restart at once', async function () {
    if (!redisServerInstalled()) this.skip();
    const redis = await PrivateRedis.start();
    try {
      const firstDir = dir();
      const first = await server(firstDir, { REDIS_URL: redis.url });
      await first.start();
      const second = await startToEnd({ DATA_DIR: dir(), REDIS_URL: redis.url });
      expect(second.code).to.equal(1);
      expect(second.stderr.trim()).to.match(
        new RegExp(
          `^cannot start: another process that keeps its documents locally already uses this Redis: process ${first.pid} on .* \\(DATA_DIR ${firstDir}\\)`,
        ),
      );
      await first.kill();
      await first.start();
      expect((await first.request('/api/applications')).status, 'restarted on its own lease').to.equal(200);
    } finally {
      await redis.stop();
    }
  });

  it('backs up online while writes go on, into a database that serves everything written before it', async () => {
    const dataDir = dir();
    const live = await server(dataDir);
    await live.start();
    for (let i = 0; i < 20; i += 1)
      await live.request('/api/users', { method: 'POST', json: { username: `kept_${i}` } });
    let writing = true;
    const writer = (async () => {
      for (let i = 0; writing && i < 500; i += 1)
        await live.request('/api/roles', { method: 'POST', json: { name: `during-${i}`, description: 'd' } });
    })();
    const target = join(dir(), 'backup.sqlite');
    const backup = await runScript(join(ROOT, 'bin/backup.ts'), [target], {
      PATH: process.env.PATH ?? '',
      DATA_DIR: dataDir,
    });
    writing = false;
    await writer;
    expect(backup.code, backup.stderr).to.equal(0);
    expect(backup.stdout).to.match(/^backed up .* to .*backup\.sqlite \(\d+ bytes\)/);
    expect(statSync(target).mode & 0o777).to.equal(0o600);
    const again = await runScript(join(ROOT, 'bin/backup.ts'), [target], {
      PATH: process.env.PATH ?? '',
      DATA_DIR: dataDir,
    });
    expect(again.code).to.equal(1);
    expect(again.stderr).to.match(/exists already: a backup never overwrites a file/);

    const restoredDir = dir();
    copyFileSync(target, join(restoredDir, 'identity.sqlite'));
    const restored = await server(restoredDir);
    await restored.start();
    const users = (await (await restored.request('/api/users?page_size=100')).json()) as Array<{ username: string }>;
    for (let i = 0; i < 20; i += 1) expect(users.map((user) => user.username)).to.include(`kept_${i}`);
  });
});
