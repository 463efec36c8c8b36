import { expect } from 'chai';
import { pino } from 'pino';
import { MANAGEMENT_RESOURCE_ID, bootstrap } from '../../../lib/bootstrap.ts';
import { createLinks } from '../../../lib/data/links.ts';
import { openRecords, prepareRecords, type Records } from '../../../app/capabilities.ts';
import { DuplicateKeyError, type DocumentStore } from '../../../lib/ports/documents.ts';
import { translateError } from '../../../adapters/mongodb/documents.ts';
import { forEachBackend } from '../../support/storage/backends.ts';

const start = (repositories: Records, managementIndicator: string) =>
  bootstrap({
    repositories,
    managementIndicator,
    adminClientId: 'contract-admin',
    adminClientSecret: 'contract-admin-secret-0123',
    logger: pino({ level: 'silent' }),
    print: () => {},
  });

forEachBackend('MongoDB path fixes', (backend) => {
  let store: DocumentStore;
  let repositories: Records;
  before(async () => {
    store = await backend.open();
    repositories = openRecords(store);
    await prepareRecords(repositories);
  });

  it('points the management resource at the new indicator when BASE_URL changed on a persistent store', async () => {
    await start(repositories, 'http://old.example.com/api');
    await start(repositories, 'https://new.example.com/api');
    expect(await repositories.resources.findByIndicator('http://old.example.com/api')).to.equal(null);
    const resource = await repositories.resources.findByIndicator('https://new.example.com/api');
    expect(resource).to.deep.include({ id: MANAGEMENT_RESOURCE_ID, name: 'Management API' });
    expect(await repositories.resources.isBuiltIn(MANAGEMENT_RESOURCE_ID)).to.equal(true);
  });

  it('refuses to start when another resource already has the new management indicator', async () => {
    await repositories.resources.insert({
      id: 'squatter',
      name: 'Squatter',
      indicator: 'https://taken.example.com/api',
      isDefault: false,
      accessTokenTtl: 60,
      createdAt: 0,
    });
    const error = await start(repositories, 'https://taken.example.com/api').then(
      () => null,
      (caught: Error) => caught,
    );
    expect(error?.name).to.equal('ConfigurationError');
    expect(error?.message).to.include('https://taken.example.com/api');
  });

  it('names the unique key an insertMany broke', async () => {
    const people = store.collection('contract_people');
    await people.createIndex({ keys: { team: 1, name: 1 }, unique: true });
    await people.insertOne({ _id: 'p1', team: 't', name: 'Ada' });
    const error = await people
      .insertMany([
        { _id: 'p2', team: 't', name: 'Bea' },
        { _id: 'p3', team: 't', name: 'Ada' },
      ])
      .then(
        () => null,
        (caught: unknown) => caught,
      );
    expect(error).to.be.instanceOf(DuplicateKeyError);
    expect((error as DuplicateKeyError).keyPattern).to.deep.equal({ team: 1, name: 1 });
  });

  it('reports only the links an add made, inside a transaction too, without failing on existing ones', async () => {
    const links = createLinks(store, 'contract_links', ['ownerId'], 'targetId');
    await links.prepare();
    expect(await links.add({ ownerId: 'o1' }, ['a', 'b'])).to.deep.equal(['a', 'b']);
    const added = await store.transaction(() => links.add({ ownerId: 'o1' }, ['b', 'c', 'a', 'd']));
    expect(added).to.deep.equal(['c', 'd']);
    expect(await links.targetsOf({ ownerId: 'o1' })).to.have.members(['a', 'b', 'c', 'd']);
  });
});

describe('MongoDB duplicate-key errors of bulk writes', () => {
  it('take the key pattern from the server message when the write error carries none', () => {
    const bulk = {
      code: 11000,
      writeErrors: [
        {
          err: {
            index: 1,
            code: 11000,
            errmsg:
              'E11000 duplicate key error collection: db.people index: team_1_name_1 dup key: { team: "a, b: c", name: "Ada" }',
          },
        },
      ],
    };
    const translated = translateError('people', bulk);
    expect(translated).to.be.instanceOf(DuplicateKeyError);
    expect((translated as DuplicateKeyError).keyPattern).to.deep.equal({ team: 1, name: 1 });
    const single = translateError('people', { code: 11000, keyPattern: { email: 1 } });
    expect((single as DuplicateKeyError).keyPattern).to.deep.equal({ email: 1 });
  });
});
