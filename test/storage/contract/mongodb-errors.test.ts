import { expect } from 'chai';
import { MongoClientClosedError, MongoNetworkError, MongoOperationTimeoutError, MongoServerError } from 'mongodb';
import { createMongoDocumentStore } from '../../../adapters/mongodb/documents.ts';
import { isDependencyFailure } from '../../../lib/http/dependency-errors.ts';
import { DuplicateKeyError, type DocumentStore } from '../../../lib/ports/documents.ts';
import { startService, type RunningService } from '../../support/service.ts';
import { interceptedStore } from '../../support/intercepted-store.ts';

/** The pool's own error class is not exported by the driver; its name is what the service recognises. */
class MongoPoolClearedError extends Error {
  override name = 'MongoPoolClearedError';
}

const notWritablePrimary = () =>
  new MongoServerError({ code: 10107, codeName: 'NotWritablePrimary', errmsg: 'not primary' });

/** An embedded store whose `roles` collection fails every call with `error()` while `down` is set. */
function storeFailingWith(error: () => Error): { store: DocumentStore; state: { down: boolean } } {
  const state = { down: false };
  const store = interceptedStore((name) => {
    if (state.down && name === 'roles') throw error();
  });
  return { store, state };
}

describe('MongoDB unavailable: bounded waits and 503', () => {
  it('recognises every driver error that means MongoDB cannot be reached or has no primary', () => {
    const unavailable = [
      new MongoPoolClearedError('pool cleared'),
      new MongoOperationTimeoutError('timed out'),
      new MongoClientClosedError(),
      new MongoNetworkError('connection reset'),
      notWritablePrimary(),
      new MongoServerError({ code: 189, codeName: 'PrimarySteppedDown', errmsg: 'stepped down' }),
      new MongoServerError({
        code: 112,
        codeName: 'WriteConflict',
        errmsg: 'conflict',
        errorLabels: ['TransientTransactionError'],
      }),
      new Error('wrapped', { cause: new MongoNetworkError('socket closed') }),
    ];
    for (const error of unavailable) expect(isDependencyFailure(error), error.message).to.equal(true);
    const bugs = [
      new TypeError('x is undefined'),
      new DuplicateKeyError('roles', { name: 1 }),
      new MongoServerError({ code: 2, codeName: 'BadValue', errmsg: 'bad value' }),
    ];
    for (const error of bugs) expect(isDependencyFailure(error), error.message).to.equal(false);
  });

  describe('through the API', () => {
    let running: RunningService;
    let state: { down: boolean };
    before(async () => {
      const failing = storeFailingWith(notWritablePrimary);
      state = failing.state;
      running = await startService({ stores: { documents: failing.store } });
    });
    after(() => running.close());

    it('answers 503 service.dependency_unavailable, reads and writes alike, and recovers', async () => {
      state.down = true;
      for (const [path, init] of [
        ['/api/roles', {}],
        ['/api/roles', { method: 'POST', json: { name: 'r', description: 'd' } }],
      ] as const) {
        const response = await running.request(path, init);
        expect(response.status, path).to.equal(503);
        expect(((await response.json()) as { code: string }).code).to.equal('service.dependency_unavailable');
      }
      state.down = false;
      expect((await running.request('/api/roles')).status).to.equal(200);
    });
  });

  it('gives up on a MongoDB that does not answer after the bounded server selection, with a dependency error', async () => {
    const started = performance.now();
    const error = await createMongoDocumentStore('mongodb://127.0.0.1:1/unreachable').then(
      () => null,
      (caught: Error) => caught,
    );
    const elapsed = performance.now() - started;
    expect(isDependencyFailure(error), String(error)).to.equal(true);
    expect(elapsed).to.be.below(15_000);
  });

  it('takes the timeouts a MONGODB_URI sets over its own', async () => {
    const started = performance.now();
    const error = await createMongoDocumentStore('mongodb://127.0.0.1:1/unreachable?serverSelectionTimeoutMS=200').then(
      () => null,
      (caught: Error) => caught,
    );
    expect(error?.name).to.equal('MongoServerSelectionError');
    expect(performance.now() - started).to.be.below(3000);
  });

  it('refuses a MONGODB_URI that names no database, saying so', async () => {
    for (const uri of ['mongodb://127.0.0.1:1', 'mongodb://127.0.0.1:1/', 'mongodb://127.0.0.1:1/?replicaSet=rs0']) {
      const error = await createMongoDocumentStore(uri).then(
        () => null,
        (caught: Error) => caught,
      );
      expect(error?.name, uri).to.equal('ConfigurationError');
      expect(error?.message).to.include('MONGODB_URI must name a database');
    }
  });
});
