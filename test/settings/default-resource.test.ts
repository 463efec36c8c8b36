import { expect } from 'chai';
import { decodeJwt } from 'jose';
import { startService, type RunningService } from '../support/service.ts';
import {
  createApplication,
  createResource,
  createRole,
  createUser,
  tokenRequest,
  type ApiFixture,
} from '../support/fixtures.ts';
import { PASSWORD, createInteractiveApp, signIn } from '../support/settings.ts';

const ORDERS = 'https://orders.example.com';
const BILLING = 'https://billing.example.com';

describe('PATCH /api/resources/:id/is-default', () => {
  let running: RunningService;
  let orders: ApiFixture;
  let billing: ApiFixture;
  let m2m: { id: string; secret?: string };
  let username: string;

  before(async () => {
    running = await startService();
    orders = await createResource(running, ORDERS, ['orders:read']);
    billing = await createResource(running, BILLING, ['billing:read']);
    const m2mRole = await createRole(
      running,
      [orders.scopes['orders:read']!.id, billing.scopes['billing:read']!.id],
      'MachineToMachine',
    );
    m2m = await createApplication(running, { type: 'MachineToMachine' });
    await running.request(`/api/applications/${m2m.id}/roles`, { method: 'POST', json: { roleIds: [m2mRole.id] } });
    const userRole = await createRole(running, [orders.scopes['orders:read']!.id]);
    username = String((await createUser(running, [userRole.id], {}, PASSWORD)).username);
  });
  after(() => running.close());

  async function setDefault(id: string, isDefault: boolean) {
    const res = await running.request(`/api/resources/${id}/is-default`, { method: 'PATCH', json: { isDefault } });
    expect(res.status).to.equal(200);
    return res.json() as Promise<{ isDefault: boolean }>;
  }

  const isDefault = async (id: string) =>
    ((await (await running.request(`/api/resources/${id}`)).json()) as { isDefault: boolean }).isDefault;

  async function clientCredentials(params: Record<string, string> = {}) {
    const res = await tokenRequest(
      running,
      { grant_type: 'client_credentials', scope: 'orders:read billing:read', ...params },
      m2m,
    );
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return String(res.body.access_token);
  }

  it('gives client-credentials requests without resource a token for the default resource', async () => {
    expect(await clientCredentials(), 'no default: an opaque token').not.to.include('.');

    expect(await setDefault(orders.resource.id, true)).to.include({ isDefault: true });
    expect(decodeJwt(await clientCredentials())).to.include({ aud: ORDERS, scope: 'orders:read' });
    expect(decodeJwt(await clientCredentials({ resource: BILLING })), 'a named resource wins').to.include({
      aud: BILLING,
    });

    await setDefault(billing.resource.id, true);
    expect(await isDefault(orders.resource.id), 'one default at most').to.equal(false);
    expect(decodeJwt(await clientCredentials())).to.include({ aud: BILLING, scope: 'billing:read' });

    await setDefault(billing.resource.id, false);
    expect(await clientCredentials()).not.to.include('.');
  });

  it('gives an authorization request without resource an access token for the default resource, unless it asks for openid', async () => {
    const spa = await createInteractiveApp(running, 'SPA');
    const before = await signIn(running, spa, username, { scope: 'openid orders:read' });
    expect(before.access_token, 'no default: a userinfo token').not.to.include('.');

    await setDefault(orders.resource.id, true);
    try {
      const after = await signIn(running, spa, username, { scope: 'orders:read' });
      expect(decodeJwt(after.access_token)).to.include({ aud: ORDERS, scope: 'orders:read' });
      // As Logto: with openid, the code's token is for the userinfo endpoint; the default resource's is one request away.
      const withOpenid = await signIn(running, spa, username, { scope: 'openid orders:read' });
      expect(withOpenid.access_token, 'a userinfo token').not.to.include('.');
    } finally {
      await setDefault(orders.resource.id, false);
    }
  });

  it('cannot make the management API the default', async () => {
    const list = (await (await running.request('/api/resources?search=%25Management%25')).json()) as Array<{
      id: string;
      indicator: string;
    }>;
    const management = list.find((resource) => resource.indicator === `${running.baseUrl}/api`)!;
    const res = await running.request(`/api/resources/${management.id}/is-default`, {
      method: 'PATCH',
      json: { isDefault: true },
    });
    expect(res.status).to.equal(400);
    expect(((await res.json()) as { code: string }).code).to.equal('resource.cannot_modify_management_api');
  });
});
