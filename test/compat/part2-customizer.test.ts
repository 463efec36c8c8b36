import { expect } from 'chai';
import { decodeJwt } from 'jose';
import { createApplication, createResource, createRole, tokenRequest } from '../support/fixtures.ts';
import { fixtures, ok, startHarness, type Harness } from '../support/management/harness.ts';

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

  it("stores Logto's empty first script as no customizer: tokens are issued without claims, even when errors would block them", async () => {
    const indicator = `https://empty-script.example.com/${Date.now()}`;
    const api = await createResource(h.running, indicator, ['read']);
    const role = await createRole(h.running, [api.scopes.read!.id], 'MachineToMachine');
    const app = await createApplication(h.running, { type: 'MachineToMachine' });
    await ok(h.api('POST', `/applications/${app.id}/roles`, { roleIds: [role.id] }));
    const claims = async () => {
      const res = await tokenRequest(
        h.running,
        { grant_type: 'client_credentials', resource: indicator, scope: 'read' },
        app,
      );
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      return decodeJwt(String(res.body.access_token));
    };

    await h.api('DELETE', PATH);
    const empty = await h.api('PUT', PATH, { script: '', blockIssuanceOnError: true });
    expect([empty.status, empty.body.script]).to.deep.equal([201, '']);
    expect((await h.api('GET', '/configs/jwt-customizer')).body).to.have.length(1);
    expect(await claims()).to.not.have.property('seen');
    expect((await h.api('PATCH', PATH, { script: SCRIPT })).status).to.equal(200);
    expect(await claims(), 'the script ran').to.have.property('seen', null);
    expect((await h.api('PATCH', PATH, { script: ' ' })).status, 'blank again: no customizer').to.equal(200);
    expect(await claims()).to.not.have.property('seen');
    const broken = await h.api('PUT', PATH, { script: 'const getCustomJwtClaims = (' });
    expect([broken.status, broken.body.code], 'a script that does not compile stays refused').to.deep.equal([
      400,
      'jwt_customizer.syntax_error',
    ]);

    expect((await h.api('DELETE', PATH)).status).to.equal(204);
    for (const [method, body, code] of [
      ['GET', undefined, 'entity.not_exists_with_id'],
      ['PATCH', { blockIssuanceOnError: false }, 'entity.not_exists_with_id'],
      ['DELETE', undefined, 'entity.not_found'],
    ] as const) {
      const missing = await h.api(method, PATH, body);
      expect([missing.status, missing.body.code], method).to.deep.equal([404, code]);
    }
  });

  it("takes Logto's tokenType on the test endpoint and answers 403 when the script denies access", async () => {
    for (const tokenType of ['access-token', 'client-credentials']) {
      const res = await h.api('POST', '/configs/jwt-customizer/test', {
        tokenType,
        script: SCRIPT,
        token: { sub: 'u1' },
        context: {},
      });
      expect([res.status, res.body], tokenType).to.deep.equal([200, { seen: 'u1' }]);
    }
    const unknown = await h.api('POST', '/configs/jwt-customizer/test', { tokenType: 'id-token', script: SCRIPT });
    expect(unknown.status).to.equal(400);
    const denied = await h.api('POST', '/configs/jwt-customizer/test', {
      tokenType: 'access-token',
      script: 'const getCustomJwtClaims = ({ api }) => { api.denyAccess("no"); };',
      token: {},
      context: {},
    });
    expect([denied.status, denied.body.code]).to.deep.equal([403, 'jwt_customizer.access_denied']);
  });

  it('answers addedRoleIds when assigning roles to a user or an application', async () => {
    const [held, fresh] = [await fixtures(h).role(), await fixtures(h).role()];
    const user = await fixtures(h).user();
    await ok(h.api('POST', `/users/${user.id}/roles`, { roleIds: [held.id] }));
    const assigned = await h.api('POST', `/users/${user.id}/roles`, { roleIds: [held.id, fresh.id] });
    expect([assigned.status, assigned.body]).to.deep.equal([
      201,
      { roleIds: [held.id, fresh.id], addedRoleIds: [fresh.id] },
    ]);

    const m2m = await fixtures(h).role({ type: 'MachineToMachine' });
    const app = await fixtures(h).m2mApplication();
    const first = await ok(h.api('POST', `/applications/${app.id}/roles`, { roleIds: [m2m.id] }));
    expect(first).to.deep.equal({ roleIds: [m2m.id], addedRoleIds: [m2m.id] });
    const again = await h.api('POST', `/applications/${app.id}/roles`, { roleIds: [m2m.id] });
    expect([again.status, again.body.code], 'a role the application holds').to.deep.equal([
      422,
      'application.role_exists',
    ]);
  });
});
