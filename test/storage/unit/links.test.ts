/** Many-to-many links, on the embedded document store; the fake clock spaces their creation times. */
import { expect } from 'chai';
import { createMemoryDocumentStore } from '../../../adapters/memory/documents.ts';
import { createLinks, type Links } from '../../../lib/data/links.ts';
import type { DocumentStore } from '../../../lib/ports/documents.ts';
import { installFakeClock, type FakeClock } from '../../support/clock.ts';

describe('links (library)', () => {
  let clock: FakeClock;
  let store: DocumentStore;
  /** Organization members' roles: owner `{ organizationId, userId }`, target `organizationRoleId`. */
  let memberRoles: Links;
  const alice = { organizationId: 'org1', userId: 'alice' };
  const bob = { organizationId: 'org1', userId: 'bob' };
  const aliceElsewhere = { organizationId: 'org2', userId: 'alice' };

  beforeEach(async () => {
    clock = installFakeClock();
    store = createMemoryDocumentStore();
    memberRoles = createLinks(store, 'member_roles', ['organizationId', 'userId'], 'organizationRoleId');
    await memberRoles.prepare();
  });
  afterEach(async () => {
    await store.close();
    clock.uninstall();
  });

  /** Adds one target at a time, a millisecond apart. */
  async function addInTurn(owner: Record<string, string>, targets: string[]) {
    for (const target of targets) {
      await memberRoles.add(owner, [target]);
      clock.advance(1);
    }
  }

  it("lists an owner's targets in the order they were added", async () => {
    await addInTurn(alice, ['viewer', 'admin', 'editor']);
    expect(await memberRoles.targetsOf(alice)).to.deep.equal(['viewer', 'admin', 'editor']);
    expect(await memberRoles.targetsOf(bob)).to.deep.equal([]);
  });

  it('adds each pair once and reports only the pairs it added', async () => {
    expect(await memberRoles.add(alice, ['admin', 'viewer', 'admin'])).to.deep.equal(['admin', 'viewer']);
    expect(await memberRoles.add(alice, ['viewer', 'editor'])).to.deep.equal(['editor']);
    expect(await memberRoles.add(alice, [])).to.deep.equal([]);
    expect(await memberRoles.targetsOf(alice)).to.have.members(['admin', 'viewer', 'editor']);
  });

  it('gives a pair to exactly one of many concurrent adds', async () => {
    const results = await Promise.all(Array.from({ length: 20 }, () => memberRoles.add(alice, ['admin'])));
    expect(results.flat()).to.deep.equal(['admin']);
    expect(await memberRoles.targetsOf(alice)).to.deep.equal(['admin']);
  });

  it('keeps owners apart on every owner field', async () => {
    await memberRoles.add(alice, ['admin']);
    await memberRoles.add(aliceElsewhere, ['viewer']);
    await memberRoles.add(bob, ['viewer']);
    expect(await memberRoles.targetsOf(alice)).to.deep.equal(['admin']);
    expect(await memberRoles.has(alice, 'admin')).to.equal(true);
    expect(await memberRoles.has(aliceElsewhere, 'admin')).to.equal(false);
    expect(await memberRoles.has(bob, 'admin')).to.equal(false);
  });

  it('removes one pair, telling whether it existed', async () => {
    await memberRoles.add(alice, ['admin', 'viewer']);
    expect(await memberRoles.remove(alice, 'admin')).to.equal(true);
    expect(await memberRoles.remove(alice, 'admin')).to.equal(false);
    expect(await memberRoles.remove(bob, 'viewer')).to.equal(false);
    expect(await memberRoles.targetsOf(alice)).to.deep.equal(['viewer']);
  });

  it("replaces an owner's targets and reports what it added and removed", async () => {
    await addInTurn(alice, ['admin', 'viewer']);
    await memberRoles.add(bob, ['admin']);
    expect(await memberRoles.replace(alice, ['viewer', 'editor', 'editor'])).to.deep.equal({
      added: ['editor'],
      removed: ['admin'],
    });
    expect(await memberRoles.targetsOf(alice)).to.have.members(['viewer', 'editor']);
    expect(await memberRoles.replace(alice, ['viewer', 'editor'])).to.deep.equal({ added: [], removed: [] });
    expect(await memberRoles.replace(alice, [])).to.deep.equal({ added: [], removed: ['viewer', 'editor'] });
    expect(await memberRoles.targetsOf(bob), 'other owners untouched').to.deep.equal(['admin']);
  });

  it('finds links by field values, an array matching any of them', async () => {
    await addInTurn(alice, ['admin']);
    await addInTurn(bob, ['viewer']);
    await addInTurn(aliceElsewhere, ['admin']);
    expect(await memberRoles.where({ organizationId: 'org1', userId: ['alice', 'bob'] })).to.deep.equal([
      { organizationId: 'org1', userId: 'alice', organizationRoleId: 'admin' },
      { organizationId: 'org1', userId: 'bob', organizationRoleId: 'viewer' },
    ]);
    expect(await memberRoles.where({ organizationRoleId: 'admin' })).to.deep.equal([
      { organizationId: 'org1', userId: 'alice', organizationRoleId: 'admin' },
      { organizationId: 'org2', userId: 'alice', organizationRoleId: 'admin' },
    ]);
    expect(await memberRoles.where({ userId: [] })).to.deep.equal([]);
  });

  it('removes every link matching, and counts them', async () => {
    await memberRoles.add(alice, ['admin', 'viewer']);
    await memberRoles.add(aliceElsewhere, ['admin']);
    await memberRoles.add(bob, ['admin']);
    expect(await memberRoles.removeWhere({ userId: 'alice' })).to.equal(3);
    expect(await memberRoles.removeWhere({ userId: 'alice' })).to.equal(0);
    expect(await memberRoles.where({ organizationRoleId: 'admin' })).to.deep.equal([
      { organizationId: 'org1', userId: 'bob', organizationRoleId: 'admin' },
    ]);
  });

  it('cannot be confused by ids that contain the separators of another pair', async () => {
    const tricky = { organizationId: 'org1","alice', userId: 'x' };
    await memberRoles.add(tricky, ['admin']);
    expect(await memberRoles.has(alice, 'admin')).to.equal(false);
    expect(await memberRoles.add(alice, ['admin'])).to.deep.equal(['admin']);
    expect(await memberRoles.targetsOf(tricky)).to.deep.equal(['admin']);
  });
});
