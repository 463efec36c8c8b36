import { expect } from 'chai';
import { ok, startHarness, type Harness } from '../support/management/harness.ts';

/** Logto's legacy hook shape: `{ event, config }` without a name. */
describe('Logto compatibility: hooks', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  it('creates a hook from { event, config } alone, with an empty name and that one event', async () => {
    const created = await h.api('POST', '/hooks', {
      event: 'PostRegister',
      config: { url: 'http://127.0.0.1:9/legacy' },
    });
    expect(created.status).to.equal(201);
    expect(created.body).to.include({ name: '', enabled: true });
    expect(created.body.events).to.deep.equal(['PostRegister']);
    const listed = await ok(h.api('GET', '/hooks'));
    expect(listed.map((hook: { id: string }) => hook.id)).to.include(created.body.id);
    const blank = await h.api('POST', '/hooks', {
      name: '',
      event: 'PostRegister',
      config: { url: 'http://127.0.0.1:9/x' },
    });
    expect(blank.status, 'a name, when given, is not blank').to.equal(400);
  });
});
