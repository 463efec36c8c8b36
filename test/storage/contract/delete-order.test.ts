import { expect } from 'chai';
import { createRole, createUser } from '../../support/fixtures.ts';
import { startService, type RunningService } from '../../support/service.ts';
import type { DocumentStore } from '../../../lib/ports/documents.ts';
import { interceptedStore } from '../../support/intercepted-store.ts';

/** The embedded store, with one collection whose deletes fail while `failing` names it. */
function storeFailingDeletes(): { store: DocumentStore; fault: { failing: string | null } } {
  const fault = { failing: null as string | null };
  const store = interceptedStore((name, method) => {
    if (fault.failing === name && (method === 'deleteMany' || method === 'deleteOne'))
      throw new Error(`${name} delete failed`);
  });
  return { store, fault };
}

/**
 * Multi-step deletes called outside a request (no transaction around them) remove the children first: a
 * failure midway leaves the entity in place, and deleting it again finishes the job, never leaving orphans.
 */
describe('multi-step deletes outside a transaction', () => {
  let running: RunningService;
  let fault: { failing: string | null };
  before(async () => {
    const failing = storeFailingDeletes();
    fault = failing.fault;
    running = await startService({ stores: { documents: failing.store } });
  });
  after(() => running.close());

  it('keep a user whose links could not all be removed, and finish on a retry', async () => {
    const role = await createRole(running, []);
    const user = await createUser(running, [role.id]);
    const { users } = running.service.core;
    fault.failing = 'organizations_users';
    const error = await users.delete(user.id).then(
      () => null,
      (caught: Error) => caught,
    );
    expect(error?.message).to.equal('organizations_users delete failed');
    expect(await running.service.records.users.findById(user.id)).to.not.equal(null);
    fault.failing = null;
    await users.delete(user.id);
    expect(await running.service.records.users.findById(user.id)).to.equal(null);
    expect(await running.service.records.roles.roleIdsOfUser(user.id)).to.deep.equal([]);
  });

  it('keep a role whose holders could not be released, and finish on a retry', async () => {
    const role = await createRole(running, []);
    await createUser(running, [role.id]);
    const { roles } = running.service.core;
    fault.failing = 'users_roles';
    await roles.delete(role.id).then(
      () => expect.fail('the delete must fail'),
      () => undefined,
    );
    expect(await running.service.records.roles.findById(role.id)).to.not.equal(null);
    fault.failing = null;
    await roles.delete(role.id);
    expect(await running.service.records.roles.findById(role.id)).to.equal(null);
  });
});
