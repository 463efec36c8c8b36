import { expect } from 'chai';
import { startService } from '../../support/service.ts';
import { eventually } from '../../support/wait.ts';
import { interceptedStore } from '../../support/intercepted-store.ts';

/** An embedded store whose role inserts, once armed, wait at a gate the test opens. */
function gatedStore() {
  const state = { armed: false, waiting: 0, open: () => {} };
  const gate = new Promise<void>((resolve) => {
    state.open = resolve;
  });
  const store = interceptedStore(async (name, method) => {
    if (state.armed && name === 'roles' && method === 'insertOne') {
      state.waiting += 1;
      await gate;
    }
  });
  return { store, state };
}

describe('shutting down with requests in flight', () => {
  it('lets them finish before closing anything', async () => {
    const { store, state } = gatedStore();
    const running = await startService({ stores: { documents: store } });
    try {
      const token = await running.adminToken();
      state.armed = true;
      const pending = running.request('/api/roles', {
        method: 'POST',
        token,
        json: { name: 'in-flight', description: 'd' },
      });
      await eventually(() => state.waiting === 1, { what: 'the request at the gate' });
      let closed = false;
      const closing = running.service.close().then(() => {
        closed = true;
      });
      for (let turn = 0; turn < 20; turn += 1) await new Promise((resolve) => setImmediate(resolve));
      expect(closed, 'closed while a request was in flight').to.equal(false);
      state.open();
      const response = await pending;
      expect(response.status, await response.clone().text()).to.equal(201);
      await closing;
    } finally {
      running.server.closeAllConnections();
      await new Promise<void>((resolve) => running.server.close(() => resolve()));
    }
  });
});
