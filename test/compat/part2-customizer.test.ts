import { expect } from 'chai';
import { fixtures, ok, startHarness, type Harness } from '../management-data/support/harness.ts';

/** Logto's customizer routes: 201 for the first PUT, the test endpoint's tokenType and 403 for denyAccess; addedRoleIds. */
describe('Logto compatibility: customizer and role assignment answers', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  const PATH = '/configs/jwt-customizer/access-token';
  const SCRIPT = 'const getCustomJwtClaims = async ({ token }) => ({ seen: token.sub ?? null });';

  it('answers 201 with the customizer to the first PUT and 200 to the next ones', async () => {
    const first = await h.api('PUT', PATH, { script: SCRIPT });
    expect(first.status).to.equal(201);
    expect(first.body).to.include({ script: SCRIPT });
    const second = await h.api('PUT', PATH, { script: SCRIPT, blockIssuanceOnError: true });
    expect(second.status).to.equal(200);
    expect(second.body).to.include({ script: SCRIPT, blockIssuanceOnError: true });
    expect((await h.api('DELETE', PATH)).status).to.equal(204);
    expect((await h.api('PUT', PATH, { script: SCRIPT })).status, 'created again after a delete').to.equal(201);
  });

  it("takes Logto's tokenType on the test endpoint and answers 403 when the script denies access", async () => {
    for (const tokenType of ['access-token', 'client-credentials']) {
      const res = await h.api('POST', '/configs/jwt-customizer/test', { tokenType, script: SCRIPT, token: { sub: 'u1' }, context: {} });
      expect([res.status, res.body], tokenType).to.deep.equal([200, { seen: 'u1' }]);
    }
    const unknown = await h.api('POST', '/configs/jwt-customizer/test', { tokenType: 'id-token', script: SCRIPT });
    expect(unknown.status).to.equal(400);
    const denied = await h.api('POST', '/configs/jwt-customizer/test', {
      tokenType: 'access-token', script: 'const getCustomJwtClaims = ({ api }) => { api.denyAccess("no"); };', token: {}, context: {},
    });
    expect([denied.status, denied.body.code]).to.deep.equal([403, 'jwt_customizer.access_denied']);
  });

  it('answers addedRoleIds when assigning roles to a user or an application', async () => {
    const [held, fresh] = [await fixtures(h).role(), await fixtures(h).role()];
    const user = await fixtures(h).user();
    await ok(h.api('POST', `/users/${user.id}/roles`, { roleIds: [held.id] }));
    const assigned = await h.api('POST', `/users/${user.id}/roles`, { roleIds: [held.id, fresh.id] });
    expect([assigned.status, assigned.body]).to.deep.equal([201, { roleIds: [held.id, fresh.id], addedRoleIds: [fresh.id] }]);

    const m2m = await fixtures(h).role({ type: 'MachineToMachine' });
    const app = await fixtures(h).m2mApplication();
    const first = await ok(h.api('POST', `/applications/${app.id}/roles`, { roleIds: [m2m.id] }));
    expect(first).to.deep.equal({ roleIds: [m2m.id], addedRoleIds: [m2m.id] });
    const again = await h.api('POST', `/applications/${app.id}/roles`, { roleIds: [m2m.id] });
    expect([again.status, again.body.code], 'a role the application holds').to.deep.equal([422, 'application.role_exists']);
  });
});
