import { expect } from 'chai';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { startService, type RunningService } from '../support/service.ts';
import { apiJson, createApplication, createResource, tokenRequest, type ApiFixture } from '../support/fixtures.ts';
import { newId } from '../../lib/ids.ts';

const INDICATOR = 'https://inventory.example.com';

/**
 * Logto's organization tokens for machine-to-machine applications: `client_credentials` with `organization_id` gives a
 * member application a token for `urn:logto:organization:<id>` with the organization scopes its organization roles
 * grant there, or with `resource` that API's token inside the organization; an application that is no member is
 * refused (403 access_denied).
 */
describe('Logto compatibility: organization tokens on the client-credentials grant', () => {
  let running: RunningService;
  let api: ApiFixture;
  let machine: { id: string; secret?: string };
  let outsider: { id: string; secret?: string };
  let organizationId: string;
  let scopeName: string;

  const json = (path: string, method: string, body?: unknown) => apiJson(running, path, method, body);

  before(async () => {
    running = await startService();
    api = await createResource(running, INDICATOR, ['stock:read', 'stock:write']);
    machine = await createApplication(running, { type: 'MachineToMachine' });
    outsider = await createApplication(running, { type: 'MachineToMachine' });
    const scope = await json('/api/organization-scopes', 'POST', { name: `sync_${newId(6)}` });
    scopeName = scope.name;
    await json('/api/organization-scopes', 'POST', { name: `other_${newId(6)}` });
    const role = await json('/api/organization-roles', 'POST', {
      name: `bot_${newId(6)}`,
      type: 'MachineToMachine',
      organizationScopeIds: [scope.id],
      resourceScopeIds: [api.scopes['stock:read']!.id],
    });
    organizationId = (await json('/api/organizations', 'POST', { name: 'Warehouse' })).id;
    await json(`/api/organizations/${organizationId}/applications`, 'POST', { applicationIds: [machine.id] });
    await json(`/api/organizations/${organizationId}/applications/${machine.id}/roles`, 'POST', {
      organizationRoleIds: [role.id],
    });
  });
  after(() => running.close());

  const grant = (app: { id: string; secret?: string }, params: Record<string, string>) =>
    tokenRequest(running, { grant_type: 'client_credentials', ...params }, app);

  async function verified(token: unknown, audience: string) {
    const jwks = createRemoteJWKSet(new URL(`${running.baseUrl}/oidc/jwks`));
    return (await jwtVerify(String(token), jwks, { issuer: `${running.baseUrl}/oidc`, audience })).payload;
  }

  it('gives a member application an organization token with the organization scopes its roles grant, and only those', async () => {
    const issued = await grant(machine, { organization_id: organizationId, scope: `${scopeName} not-a-scope` });
    expect(issued.status, JSON.stringify(issued.body)).to.equal(200);
    expect(issued.body.scope).to.equal(scopeName);
    expect(await verified(issued.body.access_token, `urn:logto:organization:${organizationId}`)).to.include({
      sub: machine.id,
      scope: scopeName,
    });
    const bare = await grant(machine, { organization_id: organizationId });
    expect(bare.status).to.equal(200);
    expect(
      (await verified(bare.body.access_token, `urn:logto:organization:${organizationId}`)).scope,
      'nothing asked, nothing given',
    ).to.equal(undefined);
  });

  it("gives an API's token inside the organization with its organization roles' resource scopes, naming the organization", async () => {
    const issued = await grant(machine, {
      organization_id: organizationId,
      resource: INDICATOR,
      scope: 'stock:read stock:write',
    });
    expect(issued.status, JSON.stringify(issued.body)).to.equal(200);
    expect(issued.body.scope).to.equal('stock:read');
    expect(await verified(issued.body.access_token, INDICATOR)).to.include({
      scope: 'stock:read',
      organization_id: organizationId,
    });
    const outside = await grant(machine, { resource: INDICATOR, scope: 'stock:read' });
    expect(outside.body.scope, 'outside the organization its roles there give nothing').to.equal(undefined);
  });

  it('refuses an application that is not a member (403 access_denied), an unknown organization likewise, and organization scopes without one', async () => {
    for (const organization of [organizationId, 'no-such-organization']) {
      const refused = await grant(outsider, { organization_id: organization, scope: scopeName });
      expect(refused.status).to.equal(403);
      expect(refused.body).to.include({
        error: 'access_denied',
        error_description: 'app has not associated with the organization',
        code: 'oidc.access_denied',
      });
    }
    const withoutOrganization = await grant(machine, {
      resource: 'urn:logto:resource:organizations',
      scope: scopeName,
    });
    expect(withoutOrganization.status).to.equal(400);
    expect(withoutOrganization.body.error).to.equal('invalid_target');
  });

  it("answers an unknown resource indicator with Logto's invalid_target description", async () => {
    const unknown = await grant(machine, { resource: 'https://not-found.example.com' });
    expect([unknown.status, unknown.body.error, unknown.body.error_description]).to.deep.equal([
      400,
      'invalid_target',
      'resource indicator is missing, or unknown',
    ]);
  });

  it('never gives a management API token inside an organization, even to an application holding management scopes', async () => {
    const indicator = `${running.baseUrl}/api`;
    const resources = (await json('/api/resources', 'GET')) as Array<{ id: string; indicator: string }>;
    const management = resources.find((resource) => resource.indicator === indicator)!;
    const scopes = (await json(`/api/resources/${management.id}/scopes`, 'GET')) as Array<{ id: string; name: string }>;
    const admin = await json('/api/roles', 'POST', {
      name: `admin_${newId(6)}`,
      type: 'MachineToMachine',
      scopeIds: scopes.map((scope) => scope.id),
    });
    await json(`/api/roles/${admin.id}/applications`, 'POST', { applicationIds: [machine.id] });
    const plain = await grant(machine, { resource: indicator, scope: 'all' });
    expect(plain.body.scope, 'outside an organization the role acts').to.equal('all');
    const inside = await grant(machine, { organization_id: organizationId, resource: indicator, scope: 'all' });
    expect(inside.body.scope, JSON.stringify(inside.body)).to.equal(undefined);
  });
});
