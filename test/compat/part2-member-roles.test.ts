import { expect } from 'chai';
import { fixtures, ok, startHarness, unique, type Harness } from '../support/management/harness.ts';

/** Logto's organizationRoleNames on a member's roles (POST and PUT). */
describe('Logto compatibility: organization member roles by name', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  it('assigns and replaces a member’s roles by name, and refuses unknown names with 422 naming them', async () => {
    const organization = await fixtures(h).organization();
    const member = await fixtures(h).member(organization.id);
    const [viewer, editor] = [
      await fixtures(h).organizationRole({ name: unique('viewer') }),
      await fixtures(h).organizationRole({ name: unique('editor') }),
    ];
    const base = `/organizations/${organization.id}/users/${member.id}/roles`;
    const added = await h.api('POST', base, { organizationRoleNames: [viewer.name], organizationRoleIds: [editor.id] });
    expect(added.status).to.equal(201);
    expect(added.body.organizationRoleIds).to.have.members([viewer.id, editor.id]);
    expect((await ok(h.api('GET', base))).map((role: { id: string }) => role.id)).to.have.members([
      viewer.id,
      editor.id,
    ]);

    expect((await h.api('PUT', base, { organizationRoleNames: [editor.name] })).status).to.equal(204);
    expect((await ok(h.api('GET', base))).map((role: { id: string }) => role.id)).to.deep.equal([editor.id]);

    const unknown = await h.api('POST', base, { organizationRoleNames: [viewer.name, 'no-such-role'] });
    expect([unknown.status, unknown.body.code, unknown.body.data]).to.deep.equal([
      422,
      'organization.role_names_not_found',
      { names: ['no-such-role'] },
    ]);
    expect(
      (await ok(h.api('GET', base))).map((role: { id: string }) => role.id),
      'nothing assigned',
    ).to.deep.equal([editor.id]);
    expect((await h.api('POST', base, {})).status, 'naming no role').to.equal(400);
  });

  it('lists only the members holding organizationRoleId when asked, as Logto', async () => {
    const organization = await fixtures(h).organization();
    const [holder, other] = [await fixtures(h).member(organization.id), await fixtures(h).member(organization.id)];
    const role = await fixtures(h).organizationRole();
    await ok(
      h.api('POST', `/organizations/${organization.id}/users/${holder.id}/roles`, { organizationRoleIds: [role.id] }),
    );
    const filtered = await ok(h.api('GET', `/organizations/${organization.id}/users?organizationRoleId=${role.id}`));
    expect(filtered.map((user: { id: string }) => user.id)).to.deep.equal([holder.id]);
    const all = await ok(h.api('GET', `/organizations/${organization.id}/users`));
    expect(all.map((user: { id: string }) => user.id)).to.have.members([holder.id, other.id]);
  });

  it('lists organization roles with their scopes and resourceScopes (each with its resource), as Logto', async () => {
    const orgScope = await fixtures(h).organizationScope();
    const { resource, scopes } = await fixtures(h).resourceWithScopes(1);
    const role = await ok(
      h.api('POST', '/organization-roles', {
        name: unique('reader'),
        organizationScopeIds: [orgScope.id],
        resourceScopeIds: [scopes[0].id],
      }),
    );
    const [listed] = await ok(h.api('GET', `/organization-roles?q=${role.name}`));
    expect(listed.scopes).to.deep.equal([{ id: orgScope.id, name: orgScope.name }]);
    expect(listed.resourceScopes).to.deep.equal([
      { id: scopes[0].id, name: scopes[0].name, resource: { id: resource.id, name: resource.name } },
    ]);
  });
});
