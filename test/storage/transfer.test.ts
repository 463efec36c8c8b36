/**
 * `npm run export` and `npm run import`: SQLite → NDJSON file → a fresh SQLite, checked document by document, key by
 * key and delivery by delivery, and by the service started on the imported data. The MongoDB side runs when
 * MONGODB_URI is set.
 */
import { expect } from 'chai';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { MongoClient } from 'mongodb';
import { decodeDocument } from '../../adapters/sqlite/codec.ts';
import { tempDataDir } from '../support/sqlite.ts';
import { eventually } from '../support/wait.ts';
import { Receiver } from '../support/webhooks/receiver.ts';
import { ServerProcess, runScript } from '../support/storage/server.ts';

const ROOT = new URL('../..', import.meta.url).pathname;
const GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';

/** Everything a data directory's file holds, decoded: documents by collection and id, keys, pending deliveries. */
function contents(dataDir: string) {
  const db = new DatabaseSync(join(dataDir, 'identity.sqlite'), { readOnly: true });
  try {
    const documents = new Map<string, unknown>();
    for (const row of db.prepare('SELECT collection, id, doc FROM documents').all()) {
      documents.set(`${String(row.collection)}/${String(row.id)}`, decodeDocument(String(row.doc)));
    }
    for (const { name } of db
      .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name LIKE 'collection:%'")
      .all()) {
      for (const row of db.prepare(`SELECT id, doc FROM "${String(name)}"`).all()) {
        documents.set(`${String(name).slice('collection:'.length)}/${String(row.id)}`, decodeDocument(String(row.doc)));
      }
    }
    const keys = new Map(
      db
        .prepare('SELECT key, value, expires_at FROM kv WHERE expires_at IS NULL OR expires_at > ?')
        .all(Date.now())
        .map((row) => [
          String(row.key),
          { value: row.value, expiresAt: row.expires_at === null ? null : Number(row.expires_at) },
        ]),
    );
    const deliveries = db
      .prepare('SELECT delivery_id, job, attempt, errors, run_at FROM delivery_jobs ORDER BY delivery_id')
      .all()
      .map((row) => ({ ...row }));
    return { documents, keys, deliveries };
  } finally {
    db.close();
  }
}

describe('npm run export / npm run import', function () {
  this.timeout(120_000);
  const dirs: string[] = [];
  const servers: ServerProcess[] = [];
  let receiver: Receiver;
  const dir = () => {
    const made = tempDataDir('identity-transfer-');
    dirs.push(made);
    return made;
  };
  const env = (dataDir: string, extra: Record<string, string> = {}) => ({
    PATH: process.env.PATH ?? '',
    DATA_DIR: dataDir,
    ...extra,
  });

  before(async () => {
    receiver = await Receiver.start();
  });
  after(async () => {
    for (const server of servers) await server.close();
    await receiver?.close();
    for (const made of dirs) rmSync(made, { recursive: true, force: true });
  });

  it('moves every document, key and pending delivery from one SQLite store to a fresh one, which then serves them', async () => {
    const source = dir();
    const server = await ServerProcess.on(source, { WEBHOOK_RETRY_DELAYS_MS: '3000' });
    servers.push(server);
    await server.start();
    const post = async (path: string, json: unknown) => {
      const response = await server.request(path, { method: 'POST', json });
      expect(response.status, await response.clone().text()).to.be.within(200, 299);
      return response.json() as Promise<Record<string, any>>;
    };
    const user = await post('/api/users', {
      username: 'moved_alice',
      password: 'Moved-Pass-2024',
      primaryEmail: 'alice@example.com',
      customData: { at: 'x' },
    });
    await post('/api/roles', { name: 'moved-role', description: 'd' });
    const organization = await post('/api/organizations', { name: 'moved org' });
    await post(`/api/organizations/${organization.id}/users`, { userIds: [user.id] });
    const app = await post('/api/applications', {
      name: 'moved app',
      type: 'Traditional',
      oidcClientMetadata: { redirectUris: ['http://127.0.0.1:9/cb'] },
      customClientMetadata: { allowTokenExchange: true },
    });
    receiver.script('/moved', (nth) => ({ status: nth === 1 ? 503 : 200 }));
    await post('/api/hooks', { name: 'moved', events: ['Role.Created'], config: { url: receiver.url('/moved') } });
    await post('/api/roles', { name: 'moved-role-2', description: 'd' });
    await eventually(() => receiver.requests('/moved').length === 1, { what: 'the first attempt' });
    const { subjectToken } = await post('/api/subject-tokens', { userId: user.id });

    const file = join(dir(), 'identity.ndjson');
    const exported = await runScript(join(ROOT, 'bin/export.ts'), [file], env(source));
    expect(exported.code, exported.stderr).to.equal(0);
    expect(exported.stdout).to.match(/^exported \d+ documents, \d+ keys and 1 pending deliveries to /);
    const header = JSON.parse(readFileSync(file, 'utf8').split('\n', 1)[0]!) as Record<string, unknown>;
    expect(header).to.include({ type: 'format', format: 'identity-service-export', version: 1 });
    await server.kill();

    const target = dir();
    const imported = await runScript(join(ROOT, 'bin/import.ts'), [file], env(target));
    expect(imported.code, imported.stderr).to.equal(0);
    expect(
      imported.stdout
        .replace(/^imported/, 'exported')
        .replace(/ from .*/, '')
        .trim(),
    ).to.equal(exported.stdout.replace(/ to .*/, '').trim());

    const before = contents(source);
    const after = contents(target);
    expect([...after.documents.keys()].sort()).to.deep.equal([...before.documents.keys()].sort());
    for (const [key, doc] of before.documents) expect(after.documents.get(key), key).to.deep.equal(doc);
    expect([...after.keys.keys()].sort()).to.deep.equal([...before.keys.keys()].sort());
    for (const [key, entry] of before.keys) {
      expect(after.keys.get(key)!.value, key).to.equal(entry.value);
      if (entry.expiresAt !== null)
        expect(Math.abs(after.keys.get(key)!.expiresAt! - entry.expiresAt), `${key} expires when it did`).to.be.at.most(
          1000,
        );
    }
    expect(after.deliveries).to.deep.equal(before.deliveries);

    const again = await runScript(join(ROOT, 'bin/import.ts'), [file], env(target));
    expect(again.code).to.equal(1);
    expect(again.stderr).to.match(/already holds documents: import into an empty store/);

    const moved = await ServerProcess.on(target);
    servers.push(moved);
    await moved.start();
    const users = (await (await moved.request('/api/users?search=moved_alice')).json()) as Array<{
      id: string;
      customData: unknown;
    }>;
    expect(users.map((found) => found.id)).to.deep.equal([user.id]);
    const exchange = await fetch(`${moved.baseUrl}/oidc/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${app.id}:${app.secret}`).toString('base64')}`,
      },
      body: new URLSearchParams({
        grant_type: GRANT,
        subject_token: subjectToken,
        subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      }),
    });
    expect(exchange.status, 'the subject token moved with the keys').to.equal(200);
    await eventually(() => receiver.requests('/moved').length === 2, {
      timeoutMs: 20_000,
      what: 'the pending delivery sent from the new store',
    });
    const [first, second] = receiver.requests('/moved');
    expect(second!.headers['webhook-id']).to.equal(first!.headers['webhook-id']);
  });

  it('moves an export into MongoDB and back out', async function () {
    const uri = process.env.MONGODB_URI;
    if (!uri) this.skip();
    const source = dir();
    const server = await ServerProcess.on(source);
    servers.push(server);
    await server.start();
    expect((await server.request('/api/users', { method: 'POST', json: { username: 'to_mongo' } })).status).to.equal(
      201,
    );
    await server.kill();
    const file = join(dir(), 'to-mongo.ndjson');
    expect((await runScript(join(ROOT, 'bin/export.ts'), [file], env(source))).code).to.equal(0);
    const dbName = `transfer_${process.pid}_${Date.now()}`;
    const mongoUri = uri!.replace(/\/([^/?]*)(\?|$)/, `/${dbName}$2`);
    try {
      const imported = await runScript(join(ROOT, 'bin/import.ts'), [file], env(dir(), { MONGODB_URI: mongoUri }));
      expect(imported.code, imported.stderr).to.equal(0);
      const back = join(dir(), 'from-mongo.ndjson');
      const exported = await runScript(join(ROOT, 'bin/export.ts'), [back], env(dir(), { MONGODB_URI: mongoUri }));
      expect(exported.code, exported.stderr).to.equal(0);
      expect(readFileSync(back, 'utf8')).to.include('"username":"to_mongo"');
    } finally {
      const client = await MongoClient.connect(uri!);
      await client.db(dbName).dropDatabase();
      await client.close();
    }
  });
});
