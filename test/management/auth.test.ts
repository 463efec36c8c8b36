import { expect } from 'chai';
import { ADMIN, clientCredentialsToken, startService, type RunningService } from '../support/service.ts';

describe('management API authentication', () => {
  let running: RunningService;
  before(async () => {
    running = await startService();
  });
  after(() => running.close());

  /** Creates an M2M app holding a role with the given scopes; returns its credentials. */
  async function m2mWithScopes(scopeIds: string[]) {
    const role = (await (
      await running.request('/api/roles', {
        method: 'POST',
        json: { name: `role-${Math.random()}`, description: 'test', type: 'MachineToMachine' },
      })
    ).json()) as { id: string };
    if (scopeIds.length) {
      const res = await running.request(`/api/roles/${role.id}/scopes`, { method: 'POST', json: { scopeIds } });
      expect(res.status).to.equal(201);
    }
    const app = (await (
      await running.request('/api/applications', {
        method: 'POST',
        json: { name: 'm2m', type: 'MachineToMachine' },
      })
    ).json()) as { id: string; secret: string };
    const assigned = await running.request(`/api/applications/${app.id}/roles`, {
      method: 'POST',
      json: { roleIds: [role.id] },
    });
    expect(assigned.status).to.equal(201);
    return app;
  }

  it('lets the bootstrap admin obtain a token with a real OAuth client and list applications', async () => {
    const token = await clientCredentialsToken(
      running.baseUrl,
      ADMIN.id,
      ADMIN.secret,
      `${running.baseUrl}/api`,
      'all',
    );
    const res = await running.request('/api/applications', { token });
    expect(res.status).to.equal(200);
    expect(res.headers.get('total-number')).to.match(/^\d+$/);
    const apps = (await res.json()) as Array<{ id: string }>;
    expect(apps.map((app) => app.id)).to.include(ADMIN.id);
  });

  it('answers 401 without a token, with a malformed one, and with a forged one', async () => {
    for (const authorization of [undefined, 'Bearer', 'Basic abc', 'Bearer not.a.jwt', `Bearer ${'e30'}.${'e30'}.x`]) {
      const headers: Record<string, string> = authorization ? { authorization } : { authorization: '' };
      const res = await fetch(`${running.baseUrl}/api/applications`, { headers });
      expect(res.status, String(authorization)).to.equal(401);
      expect(((await res.json()) as { code: string }).code).to.equal('auth.unauthorized');
    }
  });

  it('answers 401 to a token issued for another API resource', async () => {
    const resource = (await (
      await running.request('/api/resources', {
        method: 'POST',
        json: { name: 'Orders', indicator: 'https://orders.example.com' },
      })
    ).json()) as { id: string };
    const scope = (await (
      await running.request(`/api/resources/${resource.id}/scopes`, {
        method: 'POST',
        json: { name: 'read:orders' },
      })
    ).json()) as { id: string };
    const app = await m2mWithScopes([scope.id]);
    const token = await clientCredentialsToken(
      running.baseUrl,
      app.id,
      app.secret,
      'https://orders.example.com',
      'read:orders',
    );
    const res = await running.request('/api/applications', { token });
    expect(res.status).to.equal(401);
  });

  it('answers 403 to a management token without the required scope, and lets the narrow scope through only its route', async () => {
    const app = await m2mWithScopes(['management-api-subject-tokens-create']);
    const token = await clientCredentialsToken(
      running.baseUrl,
      app.id,
      app.secret,
      `${running.baseUrl}/api`,
      'all subject-tokens:create',
    );
    const payload = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { scope: string };
    expect(payload.scope).to.equal('subject-tokens:create');
    const res = await running.request('/api/applications', { token });
    expect(res.status).to.equal(403);
    expect(((await res.json()) as { code: string }).code).to.equal('auth.forbidden');
  });

  it('refuses client credentials with a wrong secret', async () => {
    const res = await fetch(`${running.baseUrl}/oidc/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${ADMIN.id}:wrong-secret`).toString('base64')}`,
      },
      body: new URLSearchParams({ grant_type: 'client_credentials', resource: `${running.baseUrl}/api`, scope: 'all' }),
    });
    expect(res.status).to.equal(401);
    expect(((await res.json()) as { error: string }).error).to.equal('invalid_client');
  });
});
