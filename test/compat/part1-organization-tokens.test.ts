import { expect } from 'chai';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { startService, type RunningService } from '../support/service.ts';
import {
  apiJson,
  createApplication,
  createResource,
  createUser,
  subjectToken,
  tokenRequest,
  type ApiFixture,
} from '../support/fixtures.ts';
import { newId } from '../../lib/ids.ts';

const GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
const AT = 'urn:ietf:params:oauth:token-type:access_token';
const LOGTO_TYPE = 'urn:logto:token-type:impersonation_token';
const INDICATOR = 'https://orders.example.com';

/**
 * Logto's token exchange (its RFC 0001 organization tokens): `organization_id` without `resource` yields a
 * token for `urn:logto:organization:<id>` carrying the requested organization scopes the member's roles grant;
 * with `resource`, a token for the API whose scopes come from the user's roles and the organization roles'
 * resource scopes there, naming the organization in `organization_id`. A non-member is refused with
 * access_denied (403).
 */
describe('Logto compatibility: token-exchange parameters and organization tokens', () => {
  let running: RunningService;
  let api: ApiFixture;
  let app: { id: string; secret?: string };
  let member: { id: string };
  let outsider: { id: string };
  let organizationId: string;

  const json = (path: string, method: string, body?: unknown) => apiJson(running, path, method, body);

  before(async () => {
    running = await startService();
    api = await createResource(running, INDICATOR, ['read', 'write']);
    app = await createApplication(running, { type: 'Traditional', customClientMetadata: { allowTokenExchange: true } });
    member = await createUser(running);
    outsider = await createUser(running);
    const view = await json('/api/organization-scopes', 'POST', { name: `view_${newId(6)}` });
    const invite = await json('/api/organization-scopes', 'POST', { name: `invite_${newId(6)}` });
    await json('/api/organization-scopes', 'POST', { name: `manage_${newId(6)}` });
    const role = await json('/api/organization-roles', 'POST', {
      name: `viewer_${newId(6)}`,
      organizationScopeIds: [view.id, invite.id],
      resourceScopeIds: [api.scopes.read!.id],
    });
    const organization = await json('/api/organizations', 'POST', { name: 'Acme' });
    organizationId = organization.id;
    await json(`/api/organizations/${organizationId}/users`, 'POST', { userIds: [member.id] });
    await json(`/api/organizations/${organizationId}/users/${member.id}/roles`, 'POST', {
      organizationRoleIds: [role.id],
    });
    scopeNames = { view: view.name, invite: invite.name };
  });
  after(() => running.close());

  let scopeNames: { view: string; invite: string };

  const exchange = (params: Record<string, string | undefined>) =>
    tokenRequest(running, { grant_type: GRANT, subject_token_type: AT, ...params }, app);

  async function verified(token: string, audience: string) {
    const jwks = createRemoteJWKSet(new URL(`${running.baseUrl}/oidc/jwks`));
    return (await jwtVerify(token, jwks, { issuer: `${running.baseUrl}/oidc`, audience })).payload;
  }

  it("accepts Logto's urn:logto:token-type:impersonation_token as the subject_token_type", async () => {
    const { status, body } = await exchange({
      subject_token: await subjectToken(running, member.id),
      subject_token_type: LOGTO_TYPE,
      scope: 'openid',
    });
    expect(status, JSON.stringify(body)).to.equal(200);
    expect(body.scope).to.equal('openid');
    const other = await exchange({
      subject_token: await subjectToken(running, member.id),
      subject_token_type: 'urn:logto:token-type:other',
    });
    expect(other.body.error).to.equal('invalid_request');
  });

  it('organization_id without resource: an organization token with the granted organization scopes', async () => {
    const { status, body } = await exchange({
      subject_token: await subjectToken(running, member.id),
      organization_id: organizationId,
      scope: `${scopeNames.view} ${scopeNames.invite} manage_nothing openid`,
    });
    expect(status, JSON.stringify(body)).to.equal(200);
    const audience = `urn:logto:organization:${organizationId}`;
    const payload = await verified(body.access_token as string, audience);
    expect(payload.sub).to.equal(member.id);
    expect(payload.aud).to.equal(audience);
    expect(String(payload.scope).split(' ').sort()).to.deep.equal([scopeNames.view, scopeNames.invite].sort());
    expect(body.scope).to.equal(payload.scope);
  });

  it("organization_id with resource: the API's token with the organization role's resource scopes, naming the organization", async () => {
    const { status, body } = await exchange({
      subject_token: await subjectToken(running, member.id),
      organization_id: organizationId,
      resource: INDICATOR,
      scope: 'read write',
    });
    expect(status, JSON.stringify(body)).to.equal(200);
    const payload = await verified(body.access_token as string, INDICATOR);
    expect(payload.scope).to.equal('read');
    expect(payload.organization_id).to.equal(organizationId);
  });

  it('without organization_id the same user gets none of the organization role resource scopes', async () => {
    const { body } = await exchange({
      subject_token: await subjectToken(running, member.id),
      resource: INDICATOR,
      scope: 'read write',
    });
    const payload = await verified(body.access_token as string, INDICATOR);
    expect(payload.scope).to.equal('');
    expect(payload.organization_id).to.equal(undefined);
  });

  it('refuses a user who is not a member with access_denied (403), without spending the subject token', async () => {
    const token = await subjectToken(running, outsider.id);
    for (const params of [
      { organization_id: organizationId },
      { organization_id: 'no-such-organization', resource: INDICATOR },
    ]) {
      const { status, body } = await exchange({ subject_token: token, scope: scopeNames.view, ...params });
      expect(status, JSON.stringify(body)).to.equal(403);
      expect(body.error).to.equal('access_denied');
      expect(body.error_description).to.match(/not a member of the organization/);
    }
    expect((await exchange({ subject_token: token, resource: INDICATOR })).status, 'still unspent').to.equal(200);
  });

  it('never yields a management API token, even inside an organization', async () => {
    const { status, body } = await exchange({
      subject_token: await subjectToken(running, member.id),
      organization_id: organizationId,
      resource: `${running.baseUrl}/api`,
      scope: 'all',
    });
    expect(status).to.equal(400);
    expect(body.error).to.equal('invalid_target');
  });

  it('audits the organization token with its audience as the resource', async () => {
    await exchange({ subject_token: await subjectToken(running, member.id), organization_id: organizationId });
    const res = await running.request(`/api/impersonation-logs?userId=${member.id}`, { method: 'GET' });
    const logs = (await res.json()) as Array<{ type: string; resource: string | null }>;
    const exchanged = logs.filter((entry) => entry.type === 'TokenExchange.Succeeded').map((entry) => entry.resource);
    expect(exchanged).to.include(`urn:logto:organization:${organizationId}`);
  });
});
