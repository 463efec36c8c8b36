import { expect } from 'chai';
import { fixtures, ok, startHarness, unique, type Harness } from '../support/management/harness.ts';

const ids = (list: Array<{ id: string }>) => list.map((item) => item.id).sort();

/** Logto's payloads and codes on resources, roles and their holders. */
describe('Logto compatibility: resources, roles and their holders', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  it('ignores indicator in PATCH /resources/:id, as Logto does', async () => {
    const { resource } = await fixtures(h).resourceWithScopes(0);
    const patched = await h.api('PATCH', `/resources/${resource.id}`, {
      name: 'renamed',
      indicator: 'https://other.example.com',
    });
    expect(patched.status).to.equal(200);
    expect(patched.body).to.include({ name: 'renamed', indicator: resource.indicator });
    expect((await ok(h.api('GET', `/resources/${resource.id}`))).indicator).to.equal(resource.indicator);
    const onlyIndicator = await h.api('PATCH', `/resources/${resource.id}`, { indicator: 'https://other.example.com' });
    expect([onlyIndicator.status, onlyIndicator.body.code]).to.deep.equal([422, 'entity.invalid_input']);
  });

  it('answers 400 resource.cannot_modify_management_api for the management API resource', async () => {
    const [management] = await ok(h.api('GET', `/resources?search=${encodeURIComponent(`${h.running.baseUrl}/api`)}`));
    const renamed = await h.api('PATCH', `/resources/${management.id}`, { name: 'mine' });
    expect([renamed.status, renamed.body.code]).to.deep.equal([400, 'resource.cannot_modify_management_api']);
    const scope = await h.api('POST', `/resources/${management.id}/scopes`, { name: 'extra' });
    expect([scope.status, scope.body.code]).to.deep.equal([400, 'resource.cannot_modify_management_api']);
  });

  it('answers 422 role.scope_exists when a role already has a scope, adding nothing', async () => {
    const { scopes } = await fixtures(h).resourceWithScopes(2);
    const role = await fixtures(h).role({ scopeIds: [scopes[0].id] });
    const again = await h.api('POST', `/roles/${role.id}/scopes`, { scopeIds: [scopes[1].id, scopes[0].id] });
    expect([again.status, again.body.code]).to.deep.equal([422, 'role.scope_exists']);
    expect(ids(await ok(h.api('GET', `/roles/${role.id}/scopes`)))).to.deep.equal([scopes[0].id]);
  });

  it('answers 422 role.user_exists and role.application_exists for holders a role already has', async () => {
    const role = await fixtures(h).role();
    const user = await fixtures(h).user();
    await ok(h.api('POST', `/roles/${role.id}/users`, { userIds: [user.id] }));
    const twice = await h.api('POST', `/roles/${role.id}/users`, { userIds: [user.id] });
    expect([twice.status, twice.body.code]).to.deep.equal([422, 'role.user_exists']);
    const m2mRole = await fixtures(h).role({ type: 'MachineToMachine' });
    const app = await fixtures(h).m2mApplication();
    await ok(h.api('POST', `/roles/${m2mRole.id}/applications`, { applicationIds: [app.id] }));
    const appTwice = await h.api('POST', `/roles/${m2mRole.id}/applications`, { applicationIds: [app.id] });
    expect([appTwice.status, appTwice.body.code]).to.deep.equal([422, 'role.application_exists']);
    const roleTwice = await h.api('POST', `/applications/${app.id}/roles`, { roleIds: [m2mRole.id] });
    expect([roleTwice.status, roleTwice.body.code]).to.deep.equal([422, 'application.role_exists']);
  });

  it("searches a role's users and applications, and an application's roles", async () => {
    const role = await fixtures(h).role();
    const needle = await fixtures(h).user({ username: unique('needle') });
    const other = await fixtures(h).user();
    await ok(h.api('POST', `/roles/${role.id}/users`, { userIds: [needle.id, other.id] }));
    const found = await h.api('GET', `/roles/${role.id}/users?search=${encodeURIComponent('%needle%')}`);
    expect(found.status).to.equal(200);
    expect(ids(found.body)).to.deep.equal([needle.id]);
    expect(found.headers.get('total-number')).to.equal('1');
    expect(ids(await ok(h.api('GET', `/roles/${role.id}/users`)))).to.deep.equal([needle.id, other.id].sort());

    const m2mRole = await fixtures(h).role({ type: 'MachineToMachine', name: unique('needlerole') });
    const app = await ok(h.api('POST', '/applications', { name: unique('needleapp'), type: 'MachineToMachine' }));
    const plainApp = await fixtures(h).m2mApplication();
    await ok(h.api('POST', `/roles/${m2mRole.id}/applications`, { applicationIds: [app.id, plainApp.id] }));
    expect(
      ids(await ok(h.api('GET', `/roles/${m2mRole.id}/applications?search=${encodeURIComponent('%needleapp%')}`))),
    ).to.deep.equal([app.id]);
    const plainRole = await fixtures(h).role({ type: 'MachineToMachine' });
    await ok(h.api('POST', `/applications/${app.id}/roles`, { roleIds: [plainRole.id] }));
    expect(
      ids(await ok(h.api('GET', `/applications/${app.id}/roles?search=${encodeURIComponent('%needlerole%')}`))),
    ).to.deep.equal([m2mRole.id]);
  });

  it('answers application.invalid_type for the roles of an application that is not MachineToMachine', async () => {
    const spa = await ok(h.api('POST', '/applications', { name: unique('spa'), type: 'SPA' }));
    const listed = await h.api('GET', `/applications/${spa.id}/roles`);
    expect([listed.status, listed.body.code]).to.deep.equal([422, 'application.invalid_type']);
    const role = await fixtures(h).role({ type: 'MachineToMachine' });
    const assigned = await h.api('POST', `/applications/${spa.id}/roles`, { roleIds: [role.id] });
    expect([assigned.status, assigned.body.code]).to.deep.equal([422, 'application.invalid_type']);
    const m2m = await fixtures(h).m2mApplication();
    const userRole = await fixtures(h).role();
    const wrongRole = await h.api('POST', `/applications/${m2m.id}/roles`, { roleIds: [userRole.id] });
    expect([wrongRole.status, wrongRole.body.code]).to.deep.equal([422, 'application.invalid_role_type']);
  });
});

/** Logto's organization fields: branding, featured members, member searches and role order. */
describe('Logto compatibility: organizations', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  it("stores color, branding and customCss, answers Logto's defaults, and refuses what is not one", async () => {
    const plain = await fixtures(h).organization();
    expect(plain).to.deep.include({ color: {}, branding: {}, customCss: null });
    const fields = {
      color: { primaryColor: '#5d34f2', isDarkModeEnabled: true, darkPrimaryColor: '#8f6ff5' },
      branding: { logoUrl: 'https://cdn.example.com/acme.png', darkLogoUrl: 'https://cdn.example.com/acme-dark.png' },
      customCss: 'main { border-radius: 0 }',
    };
    const patched = await ok(h.api('PATCH', `/organizations/${plain.id}`, fields));
    expect(patched).to.deep.include(fields);
    expect(await ok(h.api('GET', `/organizations/${plain.id}`))).to.deep.include(fields);
    expect((await ok(h.api('PATCH', `/organizations/${plain.id}`, { customCss: null }))).customCss).to.equal(null);
    for (const bad of [
      { color: { primaryColor: 'red' } },
      { branding: { logoUrl: 'javascript:alert(1)' } },
      { branding: { favicon: 'https://x.example/f.ico' } },
      { customCss: 'x'.repeat(70_000) },
    ]) {
      const refused = await h.api('POST', '/organizations', { name: unique('org'), ...bad });
      expect([refused.status, refused.body.code], JSON.stringify(bad)).to.deep.equal([400, 'guard.invalid_input']);
    }
  });

  it('answers showFeatured=1 as showFeatured=true, with usersCount and featuredUsers', async () => {
    const organization = await fixtures(h).organization({ name: unique('featured') });
    const member = await fixtures(h).member(organization.id, { name: 'Feature Member' });
    for (const flag of ['1', 'true']) {
      const listed = await ok(h.api('GET', `/organizations?showFeatured=${flag}&q=${organization.name}`));
      expect(listed).to.have.length(1);
      expect(listed[0]).to.deep.include({
        usersCount: 1,
        featuredUsers: [{ id: member.id, avatar: null, name: 'Feature Member' }],
      });
    }
    const without = await ok(h.api('GET', `/organizations?showFeatured=0&q=${organization.name}`));
    expect(without[0]).not.to.have.property('usersCount');
  });

  it("searches member applications with q, and lists a member's roles by name", async () => {
    const organization = await fixtures(h).organization();
    const needle = await ok(h.api('POST', '/applications', { name: unique('needleapp'), type: 'MachineToMachine' }));
    const other = await fixtures(h).m2mApplication();
    await ok(
      h.api('POST', `/organizations/${organization.id}/applications`, { applicationIds: [needle.id, other.id] }),
    );
    const found = await h.api('GET', `/organizations/${organization.id}/applications?q=needleapp`);
    expect(found.status).to.equal(200);
    expect(ids(found.body)).to.deep.equal([needle.id]);
    expect(ids(await ok(h.api('GET', `/organizations/${organization.id}/applications`)))).to.deep.equal(
      [needle.id, other.id].sort(),
    );

    const zebra = await fixtures(h).organizationRole({ name: unique('zebra') });
    const alpha = await fixtures(h).organizationRole({ name: unique('alpha') });
    const user = await fixtures(h).member(organization.id);
    await ok(
      h.api('POST', `/organizations/${organization.id}/users/${user.id}/roles`, {
        organizationRoleIds: [zebra.id, alpha.id],
      }),
    );
    const [listed] = await ok(h.api('GET', `/organizations/${organization.id}/users`));
    expect(listed.organizationRoles.map((role: { id: string }) => role.id)).to.deep.equal([alpha.id, zebra.id]);
  });
});
