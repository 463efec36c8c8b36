import { expect } from 'chai';
import { fixtures, ok, startHarness, unique, type Harness } from '../support/management/harness.ts';

/** Logto's error codes where Logto has one for the case; 409 (not Logto's 422) stays for conflicts. */
describe('Logto compatibility: error codes', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  it('answers entity.not_exists_with_id for an id that names nothing, and entity.not_found for a user as Logto does', async () => {
    for (const path of ['/roles/nope', '/applications/nope', '/resources/nope', '/organizations/nope', '/hooks/nope']) {
      const res = await h.api('GET', path);
      expect(res.status, path).to.equal(404);
      expect(res.body.code, path).to.equal('entity.not_exists_with_id');
    }
    for (const [method, path] of [
      ['GET', '/users/nope'],
      ['PATCH', '/users/nope'],
      ['DELETE', '/users/nope'],
      ['GET', '/users/nope/mfa-verifications'],
    ] as const) {
      const res = await h.api(method, path, method === 'PATCH' ? { name: 'x' } : undefined);
      expect([res.status, res.body.code], `${method} ${path}`).to.deep.equal([404, 'entity.not_found']);
    }
  });

  it("answers 404 entity.not_found to the deletion of a link that is not there, as Logto's relation deletions do", async () => {
    const organization = await fixtures(h).organization();
    const user = await fixtures(h).user();
    const app = await fixtures(h).m2mApplication();
    const role = await fixtures(h).role();
    const { scopes } = await fixtures(h).resourceWithScopes(1);
    const organizationRole = await fixtures(h).organizationRole();
    const organizationScope = await fixtures(h).organizationScope();
    await ok(h.api('POST', `/organizations/${organization.id}/users`, { userIds: [user.id] }));
    await ok(h.api('POST', `/organizations/${organization.id}/applications`, { applicationIds: [app.id] }));
    const scopeId = scopes[0].id;
    for (const path of [
      `/users/${user.id}/roles/${role.id}`,
      `/roles/${role.id}/users/${user.id}`,
      `/roles/${role.id}/applications/${app.id}`,
      `/applications/${app.id}/roles/${role.id}`,
      `/roles/${role.id}/scopes/${scopeId}`,
      `/organizations/${organization.id}/users/${user.id}/roles/${organizationRole.id}`,
      `/organizations/${organization.id}/applications/${app.id}/roles/${organizationRole.id}`,
      `/organizations/${organization.id}/users/${(await fixtures(h).user()).id}`,
      `/organizations/${organization.id}/jit/roles/${organizationRole.id}`,
      `/organizations/${organization.id}/jit/email-domains/nobody.example.com`,
      `/organization-roles/${organizationRole.id}/scopes/${organizationScope.id}`,
      `/organization-roles/${organizationRole.id}/resource-scopes/${scopeId}`,
    ]) {
      const res = await h.api('DELETE', path);
      expect([res.status, res.body.code], path).to.deep.equal([404, 'entity.not_found']);
    }
  });

  it('answers 422 entity.relation_foreign_key_not_found for an organization relation naming nothing', async () => {
    const organization = await ok(h.api('POST', '/organizations', { name: unique('rel') }));
    const user = await fixtures(h).user();
    const role = await ok(h.api('POST', '/organization-roles', { name: unique('role') }));
    await ok(h.api('POST', `/organizations/${organization.id}/users`, { userIds: [user.id] }));
    const cases: Array<[string, string, unknown]> = [
      ['POST', '/organizations/nope/users', { userIds: [user.id] }],
      ['POST', `/organizations/${organization.id}/users`, { userIds: ['nobody'] }],
      ['PUT', `/organizations/${organization.id}/users`, { userIds: [user.id, 'nobody'] }],
      ['POST', '/organizations/nope/applications', { applicationIds: ['x'] }],
      ['POST', `/organizations/${organization.id}/users/${user.id}/roles`, { organizationRoleIds: ['no-role'] }],
      ['POST', `/organization-roles/${role.id}/scopes`, { organizationScopeIds: ['no-scope'] }],
      ['POST', `/organization-roles/${role.id}/resource-scopes`, { scopeIds: ['no-scope'] }],
      ['POST', `/organizations/${organization.id}/jit/roles`, { organizationRoleIds: ['no-role'] }],
      ['POST', `/organizations/${organization.id}/jit/sso-connectors`, { ssoConnectorIds: ['no-connector'] }],
      [
        'POST',
        '/organization-invitations',
        { organizationId: 'nope', invitee: `${unique('i')}@example.com`, expiresAt: Date.now() + 60_000 },
      ],
    ];
    for (const [method, path, body] of cases) {
      const res = await h.api(method, path, body);
      expect([res.status, res.body.code], `${method} ${path}`).to.deep.equal([
        422,
        'entity.relation_foreign_key_not_found',
      ]);
    }
    const members = await ok(h.api('GET', `/organizations/${organization.id}/users`));
    expect(
      members.map((member: { id: string }) => member.id),
      'a refused replacement changed nothing',
    ).to.deep.equal([user.id]);
  });

  it("answers Logto's codes on invitation status changes: request.invalid_input for a settled invitation or another email, entity.not_found for an unknown user", async () => {
    const organization = await ok(h.api('POST', '/organizations', { name: unique('inv') }));
    const email = `${unique('inv')}@example.com`;
    const create = () =>
      ok(
        h.api('POST', '/organization-invitations', {
          organizationId: organization.id,
          invitee: email,
          expiresAt: Date.now() + 60_000,
        }),
      );
    const other = await fixtures(h).user({ primaryEmail: `${unique('other')}@example.com` });
    const first = await create();
    const status = (id: string, body: Record<string, unknown>) =>
      h.api('PUT', `/organization-invitations/${id}/status`, body);
    expect((await status(first.id, { status: 'Accepted', acceptedUserId: other.id })).body.code).to.equal(
      'request.invalid_input',
    );
    const unknown = await status(first.id, { status: 'Accepted', acceptedUserId: 'nobody' });
    expect([unknown.status, unknown.body.code]).to.deep.equal([404, 'entity.not_found']);
    expect((await status(first.id, { status: 'Revoked' })).status).to.equal(200);
    const settled = await status(first.id, { status: 'Accepted' });
    expect([settled.status, settled.body.code], 'checked before acceptedUserId').to.deep.equal([
      422,
      'request.invalid_input',
    ]);
    const pending = await create();
    const withoutUser = await status(pending.id, { status: 'Accepted' });
    expect([withoutUser.status, withoutUser.body.code]).to.deep.equal([400, 'guard.invalid_input']);
  });

  it("answers Logto's codes for identifiers, role names and resource indicators in use", async () => {
    const username = unique('taken');
    const holder = await fixtures(h).user({
      username,
      primaryEmail: `${username}@example.com`,
      primaryPhone: '15550001111',
    });
    const cases: Array<[Record<string, string>, string]> = [
      [{ username }, 'user.username_already_in_use'],
      [{ primaryEmail: `${username}@example.com` }, 'user.email_already_in_use'],
      [{ primaryPhone: '15550001111' }, 'user.phone_already_in_use'],
    ];
    for (const [body, code] of cases) {
      const created = await h.api('POST', '/users', body);
      expect(created.status, code).to.equal(409);
      expect(created.body.code).to.equal(code);
    }
    const other = await fixtures(h).user();
    const patched = await h.api('PATCH', `/users/${other.id}`, { primaryEmail: holder.primaryEmail });
    expect(patched.body.code).to.equal('user.email_already_in_use');

    const role = await fixtures(h).role();
    const sameName = await h.api('POST', '/roles', { name: role.name });
    expect([sameName.status, sameName.body.code]).to.deep.equal([409, 'role.name_in_use']);

    const indicator = `https://${unique('api').toLowerCase()}.example.com`;
    await ok(h.api('POST', '/resources', { name: 'first', indicator }));
    const sameIndicator = await h.api('POST', '/resources', { name: 'second', indicator });
    expect([sameIndicator.status, sameIndicator.body.code]).to.deep.equal([409, 'resource.resource_identifier_in_use']);
  });
});
