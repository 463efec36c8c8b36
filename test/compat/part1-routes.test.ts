import { expect } from 'chai';
import { fixtures, ok, startHarness, unique, type Harness } from '../support/management/harness.ts';

/** Routes Logto's Management API has and clients call, with Logto's shapes and refusals. */
describe('Logto compatibility: role holders, organization application roles, member scopes, custom data, JWT customizer list', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  const ids = (list: Array<{ id: string }>) => list.map((item) => item.id).sort();

  it('GET/POST /roles/:id/users and DELETE /roles/:id/users/:userId manage who holds a User role', async () => {
    const role = await fixtures(h).role();
    const [alice, bob] = [await fixtures(h).user(), await fixtures(h).user()];
    const added = await h.api('POST', `/roles/${role.id}/users`, { userIds: [alice.id, bob.id] });
    expect(added.status, JSON.stringify(added.body)).to.equal(201);
    const listed = await h.api('GET', `/roles/${role.id}/users?page_size=1`);
    expect(listed.headers.get('total-number')).to.equal('2');
    expect(listed.body).to.have.length(1);
    expect(ids(await ok(h.api('GET', `/roles/${role.id}/users`)))).to.deep.equal([alice.id, bob.id].sort());
    expect(ids(await ok(h.api('GET', `/users/${alice.id}/roles`)))).to.deep.equal([role.id]);
    expect((await h.api('DELETE', `/roles/${role.id}/users/${alice.id}`)).status).to.equal(204);
    expect(ids(await ok(h.api('GET', `/roles/${role.id}/users`)))).to.deep.equal([bob.id]);
    expect((await h.api('DELETE', `/roles/${role.id}/users/${alice.id}`)).status, 'no longer held').to.equal(404);
    expect((await h.api('POST', `/roles/${role.id}/users`, { userIds: ['no-such-user'] })).status).to.equal(404);
    expect((await h.api('POST', `/roles/${role.id}/users`, { userIds: [] })).status).to.equal(400);
    expect((await h.api('GET', '/roles/no-such-role/users')).status).to.equal(404);
    const m2m = await fixtures(h).role({ type: 'MachineToMachine' });
    const mismatch = await h.api('POST', `/roles/${m2m.id}/users`, { userIds: [bob.id] });
    expect(mismatch.status).to.equal(422);
    expect(mismatch.body.code).to.equal('user.invalid_role_type');
  });

  it('GET/POST /roles/:id/applications and DELETE …/:applicationId manage MachineToMachine holders', async () => {
    const role = await fixtures(h).role({ type: 'MachineToMachine' });
    const app = await fixtures(h).m2mApplication();
    expect((await h.api('POST', `/roles/${role.id}/applications`, { applicationIds: [app.id] })).status).to.equal(201);
    expect(ids(await ok(h.api('GET', `/roles/${role.id}/applications`)))).to.deep.equal([app.id]);
    expect(ids(await ok(h.api('GET', `/applications/${app.id}/roles`)))).to.deep.equal([role.id]);
    expect((await h.api('DELETE', `/roles/${role.id}/applications/${app.id}`)).status).to.equal(204);
    expect(await ok(h.api('GET', `/roles/${role.id}/applications`))).to.deep.equal([]);
    const spa = await ok(h.api('POST', '/applications', { name: unique('spa'), type: 'SPA' }));
    const refused = await h.api('POST', `/roles/${role.id}/applications`, { applicationIds: [spa.id] });
    expect(refused.status).to.equal(422);
    expect(refused.body.code).to.equal('application.invalid_type');
    const userRole = await fixtures(h).role();
    expect(
      (await h.api('POST', `/roles/${userRole.id}/applications`, { applicationIds: [app.id] })).body.code,
    ).to.equal('application.invalid_role_type');
  });

  it('GET /users/:id/custom-data answers the custom data', async () => {
    const user = await fixtures(h).user({ customData: { plan: 'pro', seats: 3 } });
    expect(await ok(h.api('GET', `/users/${user.id}/custom-data`))).to.deep.equal({ plan: 'pro', seats: 3 });
    expect((await h.api('GET', '/users/no-such-user/custom-data')).status).to.equal(404);
  });

  it('GET /configs/jwt-customizer lists the stored customizers as Logto does', async () => {
    expect(await ok(h.api('GET', '/configs/jwt-customizer'))).to.deep.equal([]);
    const script = 'const getCustomJwtClaims = async () => ({ tier: "gold" });';
    const stored = await ok(h.api('PUT', '/configs/jwt-customizer/access-token', { script }));
    expect(await ok(h.api('GET', '/configs/jwt-customizer'))).to.deep.equal([
      { key: 'jwt.accessToken', value: stored },
    ]);
    await ok(h.api('DELETE', '/configs/jwt-customizer/access-token'));
    expect(await ok(h.api('GET', '/configs/jwt-customizer'))).to.deep.equal([]);
  });

  it('/organizations/:id/applications/:applicationId/roles: member applications hold MachineToMachine organization roles', async () => {
    const organization = await fixtures(h).organization();
    const app = await fixtures(h).m2mApplication();
    const [reader, writer] = [
      await fixtures(h).organizationRole({ type: 'MachineToMachine' }),
      await fixtures(h).organizationRole({ type: 'MachineToMachine' }),
    ];
    const path = `/organizations/${organization.id}/applications/${app.id}/roles`;
    const notMember = await h.api('POST', path, { organizationRoleIds: [reader.id] });
    expect(notMember.status).to.equal(422);
    expect(notMember.body.code).to.equal('organization.require_membership');
    await ok(h.api('POST', `/organizations/${organization.id}/applications`, { applicationIds: [app.id] }));
    expect((await h.api('POST', path, { organizationRoleIds: [reader.id] })).status).to.equal(201);
    expect(ids(await ok(h.api('GET', path)))).to.deep.equal([reader.id]);
    expect((await h.api('PUT', path, { organizationRoleIds: [writer.id] })).status).to.equal(204);
    expect(ids(await ok(h.api('GET', path)))).to.deep.equal([writer.id]);
    expect((await h.api('DELETE', `${path}/${writer.id}`)).status).to.equal(204);
    expect(await ok(h.api('GET', path))).to.deep.equal([]);
    expect((await h.api('DELETE', `${path}/${writer.id}`)).status).to.equal(404);
    const userRole = await fixtures(h).organizationRole();
    expect((await h.api('POST', path, { organizationRoleIds: [userRole.id] })).body.code).to.equal(
      'organization.role_type_mismatch',
    );
    expect((await h.api('POST', path, { organizationRoleIds: ['no-such-role'] })).status).to.equal(422);
    await ok(h.api('POST', path, { organizationRoleIds: [reader.id] }));
    await ok(h.api('DELETE', `/organizations/${organization.id}/applications/${app.id}`));
    await ok(h.api('POST', `/organizations/${organization.id}/applications`, { applicationIds: [app.id] }));
    expect(await ok(h.api('GET', path)), 'roles do not outlive the membership').to.deep.equal([]);

    await ok(h.api('POST', path, { organizationRoleIds: [reader.id] }));
    await ok(h.api('DELETE', `/applications/${app.id}`));
    const left = await h.running.service.records.organizations.applicationRoles.where({
      applicationId: app.id,
    });
    expect(left, 'nor the application').to.deep.equal([]);
  });

  it('POST /organizations/:id/applications/roles gives MachineToMachine roles to several member applications, all or nothing', async () => {
    const organization = await fixtures(h).organization();
    const [first, second, outsider] = [
      await fixtures(h).m2mApplication(),
      await fixtures(h).m2mApplication(),
      await fixtures(h).m2mApplication(),
    ];
    await ok(
      h.api('POST', `/organizations/${organization.id}/applications`, { applicationIds: [first.id, second.id] }),
    );
    const [reader, writer] = [
      await fixtures(h).organizationRole({ type: 'MachineToMachine' }),
      await fixtures(h).organizationRole({ type: 'MachineToMachine' }),
    ];
    const path = `/organizations/${organization.id}/applications/roles`;
    const res = await h.api('POST', path, {
      applicationIds: [first.id, second.id],
      organizationRoleIds: [reader.id, writer.id],
    });
    expect([res.status, res.body], JSON.stringify(res.body)).to.deep.equal([
      201,
      { applicationIds: [first.id, second.id], organizationRoleIds: [reader.id, writer.id] },
    ]);
    for (const app of [first, second]) {
      expect(
        ids(await ok(h.api('GET', `/organizations/${organization.id}/applications/${app.id}/roles`))),
      ).to.deep.equal([reader.id, writer.id].sort());
    }
    const refused = await h.api('POST', path, {
      applicationIds: [first.id, outsider.id],
      organizationRoleIds: [reader.id],
    });
    expect([refused.status, refused.body.code]).to.deep.equal([422, 'organization.require_membership']);
    const userRole = await fixtures(h).organizationRole();
    const wrongType = await h.api('POST', path, { applicationIds: [first.id], organizationRoleIds: [userRole.id] });
    expect([wrongType.status, wrongType.body.code]).to.deep.equal([422, 'organization.role_type_mismatch']);
    expect(
      ids(await ok(h.api('GET', `/organizations/${organization.id}/applications/${first.id}/roles`))),
      'nothing changed',
    ).to.deep.equal([reader.id, writer.id].sort());
    expect((await h.api('POST', path, { applicationIds: [], organizationRoleIds: [reader.id] })).status).to.equal(400);
  });

  it('POST /organizations/:id/users/roles gives roles to several members; GET …/users/:userId/scopes sums their scopes', async () => {
    const organization = await fixtures(h).organization();
    const [alice, bob] = [await fixtures(h).member(organization.id), await fixtures(h).member(organization.id)];
    const [view, edit] = [await fixtures(h).organizationScope(), await fixtures(h).organizationScope()];
    const viewer = await fixtures(h).organizationRole({ organizationScopeIds: [view.id] });
    const editor = await fixtures(h).organizationRole({ organizationScopeIds: [view.id, edit.id] });
    const res = await h.api('POST', `/organizations/${organization.id}/users/roles`, {
      userIds: [alice.id, bob.id],
      organizationRoleIds: [viewer.id],
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    for (const user of [alice, bob]) {
      expect(ids(await ok(h.api('GET', `/organizations/${organization.id}/users/${user.id}/roles`)))).to.deep.equal([
        viewer.id,
      ]);
    }
    await ok(
      h.api('POST', `/organizations/${organization.id}/users/${alice.id}/roles`, { organizationRoleIds: [editor.id] }),
    );
    expect(ids(await ok(h.api('GET', `/organizations/${organization.id}/users/${alice.id}/scopes`)))).to.deep.equal(
      [view.id, edit.id].sort(),
    );
    expect(ids(await ok(h.api('GET', `/organizations/${organization.id}/users/${bob.id}/scopes`)))).to.deep.equal([
      view.id,
    ]);

    const outsider = await fixtures(h).user();
    const refused = await h.api('POST', `/organizations/${organization.id}/users/roles`, {
      userIds: [alice.id, outsider.id],
      organizationRoleIds: [editor.id],
    });
    expect(refused.status).to.equal(422);
    expect(refused.body.code).to.equal('organization.require_membership');
    expect(
      ids(await ok(h.api('GET', `/organizations/${organization.id}/users/${alice.id}/roles`))),
      'nothing changed',
    ).to.deep.equal([viewer.id, editor.id].sort());
    expect((await h.api('GET', `/organizations/${organization.id}/users/${outsider.id}/scopes`)).body.code).to.equal(
      'organization.require_membership',
    );
    expect(
      (
        await h.api('POST', `/organizations/${organization.id}/users/roles`, {
          userIds: [alice.id],
          organizationRoleIds: [],
        })
      ).status,
    ).to.equal(400);
  });

  it('organization roles carry API-resource scopes: resourceScopeIds on create, GET …/resource-scopes', async () => {
    const { scopes } = await fixtures(h).resourceWithScopes(2);
    const role = await fixtures(h).organizationRole({ resourceScopeIds: [scopes[0].id] });
    expect(ids(await ok(h.api('GET', `/organization-roles/${role.id}/resource-scopes`)))).to.deep.equal([scopes[0].id]);
    const many = await fixtures(h).resourceWithScopes(25);
    await ok(
      h.api('PUT', `/organization-roles/${role.id}/resource-scopes`, {
        scopeIds: many.scopes.map((item: { id: string }) => item.id),
      }),
    );
    expect(
      await ok(h.api('GET', `/organization-roles/${role.id}/resource-scopes`)),
      'all without page or page_size',
    ).to.have.length(25);
    const paged = await h.api('GET', `/organization-roles/${role.id}/resource-scopes?page=2&page_size=10`);
    expect([paged.body.length, paged.headers.get('total-number')]).to.deep.equal([10, '25']);
    await ok(h.api('PUT', `/organization-roles/${role.id}/resource-scopes`, { scopeIds: [scopes[0].id] }));
    await ok(h.api('DELETE', `/resources/${scopes[0].resourceId}/scopes/${scopes[0].id}`));
    expect(
      await ok(h.api('GET', `/organization-roles/${role.id}/resource-scopes`)),
      'a deleted scope leaves the role',
    ).to.deep.equal([]);
    expect((await h.api('GET', '/organization-roles/no-such-role/resource-scopes')).status).to.equal(404);
  });
});
