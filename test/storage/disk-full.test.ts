/**
 * A disk that refuses writes, on the real server: a file-size limit (prlimit --fsize, set on the running process)
 * stands for a full disk. The server ignores SIGXFSZ, so writes past the limit fail with EFBIG: each request that
 * writes answers 503 service.dependency_unavailable and leaves nothing; reads still answer; raising the limit (space
 * returning) lets writes through again, without a restart.
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { tempDataDir } from '../support/sqlite.ts';
import { ServerProcess } from '../support/storage/server.ts';

const prlimitInstalled = spawnSync('prlimit', ['--version']).status === 0;

function limitFileSize(pid: number, bytes: number | 'unlimited'): void {
  const result = spawnSync('prlimit', ['--pid', String(pid), `--fsize=${bytes}:unlimited`]);
  expect(result.status, result.stderr.toString()).to.equal(0);
}

describe('SQLite store: a disk that refuses writes', function () {
  this.timeout(60_000);
  let dataDir: string;
  let server: ServerProcess;

  before(async function () {
    // Reported pending, never passed, where prlimit (util-linux) is missing.
    if (!prlimitInstalled) this.skip();
    dataDir = tempDataDir();
    server = await ServerProcess.on(dataDir);
    await server.start();
  });
  after(async () => {
    await server?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const createUser = (username: string) => server.request('/api/users', { method: 'POST', json: { username } });

  it('answers 503 service.dependency_unavailable for writes, keeps nothing of them, and recovers once space returns', async () => {
    expect((await createUser('before_full')).status).to.equal(201);
    limitFileSize(server.pid, 4096);
    const refused = await Promise.all(['full_1', 'full_2', 'full_3'].map(createUser));
    for (const response of refused) {
      expect(response.status).to.equal(503);
      expect(((await response.json()) as { code: string }).code).to.equal('service.dependency_unavailable');
    }
    const listed = await server.request('/api/users?search=full_');
    expect(listed.status, 'reads still answer').to.equal(200);
    expect(await listed.json()).to.deep.equal([]);

    limitFileSize(server.pid, 'unlimited');
    expect((await createUser('after_space_returned')).status, 'no restart needed').to.equal(201);

    await server.kill();
    await server.start();
    const users = (await (await server.request('/api/users?page_size=100')).json()) as Array<{ username: string }>;
    const names = users
      .map((user) => user.username)
      .filter((name) => name !== null)
      .sort();
    expect(names).to.include.members(['after_space_returned', 'before_full']);
    expect(
      names.filter((name) => name.startsWith('full_')),
      'nothing of the refused writes',
    ).to.deep.equal([]);
  });
});
