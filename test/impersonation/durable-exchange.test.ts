/**
 * What an impersonation waits for on the SQLite store with FULL: the exchange's spending of the subject token and its
 * records share one commit, so the exchange waits for one sync of the WAL for them, and a commit that cannot be made
 * durable leaves the token unspent and nothing recorded. The sync stands in for the disk here (`syncFile`), counted;
 * a connection that refuses every change (`query_only`) stands for a full or read-only disk.
 */
import { expect } from 'chai';
import { rmSync } from 'node:fs';
import { openSqliteDatabase, type SqliteDatabase } from '../../adapters/sqlite/database.ts';
import { createSqliteDocumentStore } from '../../adapters/sqlite/documents.ts';
import { createSqliteKeyValueStore } from '../../adapters/sqlite/kv.ts';
import { DISK_RESIDENT_COLLECTIONS } from '../../app/stores.ts';
import type { DocumentStore } from '../../lib/ports/documents.ts';
import type { KeyValueStore } from '../../lib/ports/kv.ts';
import { createApplication, createResource, createUser, subjectToken, tokenRequest } from '../support/fixtures.ts';
import { startService, type RunningService } from '../support/service.ts';
import { tempDataDir } from '../support/sqlite.ts';
import { AT, GRANT } from '../support/token-exchange.ts';

describe('impersonation on the SQLite store: one sync per exchange', () => {
  let dataDir: string;
  let database: SqliteDatabase;
  let documents: DocumentStore;
  let kv: KeyValueStore;
  let running: RunningService;
  let syncs = 0;

  before(async () => {
    dataDir = tempDataDir();
    database = openSqliteDatabase({
      dataDir,
      synchronous: 'FULL',
      syncFile: async () => {
        syncs += 1;
      },
    });
    documents = createSqliteDocumentStore(database, { diskResident: DISK_RESIDENT_COLLECTIONS });
    kv = createSqliteKeyValueStore(database);
    running = await startService({ stores: { documents, kv } });
    await createResource(running, 'https://sync.example.com', ['read']);
  });
  after(async () => {
    await running.close();
    await kv.close();
    await documents.close();
    await database.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function prepared() {
    const app = await createApplication(running, {
      type: 'Traditional',
      customClientMetadata: { allowTokenExchange: true },
    });
    const user = await createUser(running);
    const token = await subjectToken(running, user.id);
    await database.settled();
    const exchange = () =>
      tokenRequest(
        running,
        {
          grant_type: GRANT,
          subject_token_type: AT,
          subject_token: token,
          resource: 'https://sync.example.com',
          scope: 'read',
        },
        app,
      );
    return { user, exchange };
  }

  it('the spending of the subject token and the records of the exchange are made durable by one sync', async () => {
    const { user, exchange } = await prepared();
    const before = syncs;
    const res = await exchange();
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    // The impersonation event is written once the exchange is recorded (the outbox), a commit of its own.
    expect(syncs - before, 'syncs the exchange waited for').to.equal(2);
    const logs = (await (await running.request(`/api/impersonation-logs?userId=${user.id}`)).json()) as Array<{
      type: string;
    }>;
    expect(logs.map((log) => log.type)).to.include('TokenExchange.Succeeded');
    const again = await exchange();
    expect(again.status).to.equal(400);
  });

  it('when that commit cannot be made durable, answers 503, records no exchange and leaves the token unspent', async () => {
    const { user, exchange } = await prepared();
    database.db.exec('PRAGMA query_only = ON');
    let res: Awaited<ReturnType<typeof exchange>>;
    try {
      res = await exchange();
    } finally {
      database.db.exec('PRAGMA query_only = OFF');
    }
    expect(res.status, JSON.stringify(res.body)).to.equal(503);
    const logs = (await (await running.request(`/api/impersonation-logs?userId=${user.id}`)).json()) as Array<{
      type: string;
    }>;
    expect(logs.map((log) => log.type)).to.deep.equal(['SubjectToken.Created']);
    const retried = await exchange();
    expect(retried.status, JSON.stringify(retried.body)).to.equal(200);
  });
});
