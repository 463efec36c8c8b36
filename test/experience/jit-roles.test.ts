import { expect } from 'chai';
import { startHarness, fixtures, type Harness } from '../support/management/harness.ts';

describe('organization JIT default roles (management API)', () => {
  let h: Harness;
  let f: ReturnType<typeof fixtures>;

  before(async () => {
    h = await startHarness();
    f = fixtures(h);
  });
  after(() => h.close());

  it('adds, lists, replaces and removes the roles users get when they join just in time', async () => {
    const organization = await f.organization();
    const [viewer, editor, admin] = [
      await f.organizationRole(),
      await f.organizationRole(),
      await f.organizationRole(),
    ];
    const base = `/organizations/${organization.id}/jit/roles`;

    const added = await h.api('POST', base, { organizationRoleIds: [viewer.id, editor.id, viewer.id] });
    expect(added.status).to.equal(201);
    expect(added.body).to.deep.equal({ organizationRoleIds: [viewer.id, editor.id] });
    const listed = await h.api('GET', base);
    expect(listed.status).to.equal(200);
    expect(listed.body.map((role: { id: string }) => role.id)).to.have.members([viewer.id, editor.id]);
    expect(listed.body.find((role: { id: string }) => role.id === viewer.id)).to.include({
      name: viewer.name,
      type: 'User',
    });
    expect(listed.headers.get('total-number')).to.equal('2');

    expect((await h.api('PUT', base, { organizationRoleIds: [admin.id] })).status).to.equal(204);
    expect((await h.api('GET', base)).body.map((role: { id: string }) => role.id)).to.deep.equal([admin.id]);

    expect((await h.api('DELETE', `${base}/${admin.id}`)).status).to.equal(204);
    expect((await h.api('GET', base)).body).to.deep.equal([]);
    const again = await h.api('DELETE', `${base}/${admin.id}`);
    expect(again.status).to.equal(404);
    expect(again.body.code).to.equal('entity.not_found');
  });

  it('refuses unknown organizations and roles, and roles for applications', async () => {
    const organization = await f.organization();
    const base = `/organizations/${organization.id}/jit/roles`;
    const unknownRole = await h.api('POST', base, { organizationRoleIds: ['no-such-role'] });
    expect(unknownRole.status, "Logto's 422 for a relation naming nothing").to.equal(422);
    expect(unknownRole.body.code).to.equal('entity.relation_foreign_key_not_found');
    const machine = await f.organizationRole({ type: 'MachineToMachine' });
    const wrongType = await h.api('PUT', base, { organizationRoleIds: [machine.id] });
    expect(wrongType.status).to.equal(422);
    expect(wrongType.body.code).to.equal('organization.role_type_mismatch');
    const unknownOrganization = await h.api('GET', '/organizations/no-such-organization/jit/roles');
    expect(unknownOrganization.status).to.equal(404);
    const empty = await h.api('POST', base, { organizationRoleIds: [] });
    expect(empty.status).to.equal(400);
    expect(empty.body.code).to.equal('guard.invalid_input');
    expect((await h.api('GET', base)).body).to.deep.equal([]);
  });

  it('forgets a deleted organization role', async () => {
    const organization = await f.organization();
    const role = await f.organizationRole();
    await h.api('POST', `/organizations/${organization.id}/jit/roles`, { organizationRoleIds: [role.id] });
    expect((await h.api('DELETE', `/organization-roles/${role.id}`)).status).to.equal(204);
    expect((await h.api('GET', `/organizations/${organization.id}/jit/roles`)).body).to.deep.equal([]);
  });
});
