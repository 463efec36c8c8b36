import { expect } from 'chai';
import { startService, type RunningService } from '../support/service.ts';
import { createApplication, createRole, createUser, subjectToken, tokenRequest } from '../support/fixtures.ts';

const GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
const AT = 'urn:ietf:params:oauth:token-type:access_token';

describe('applications', () => {
  let running: RunningService;
  before(async () => {
    running = await startService();
  });
  after(() => running.close());

  it("creates each type with Logto's shape, token exchange off, and a secret only for confidential ones", async () => {
    for (const type of ['MachineToMachine', 'Traditional', 'SPA', 'Native']) {
      const res = await running.request('/api/applications', {
        method: 'POST',
        json: { name: `${type} app`, type, oidcClientMetadata: { redirectUris: ['https://app.example.com/cb'] } },
      });
      expect(res.status).to.equal(201);
      const app = (await res.json()) as Record<string, unknown>;
      expect(app).to.include({ name: `${type} app`, type, isThirdParty: false, description: null });
      expect(app.customClientMetadata).to.deep.equal({ allowTokenExchange: false });
      expect(app.oidcClientMetadata).to.deep.equal({
        redirectUris: ['https://app.example.com/cb'],
        postLogoutRedirectUris: [],
      });
      expect(Boolean(app.secret), type).to.equal(type === 'MachineToMachine' || type === 'Traditional');
      const fetched = (await (await running.request(`/api/applications/${app.id}`)).json()) as Record<string, unknown>;
      expect(fetched).not.to.have.property('secret');
      expect(fetched).not.to.have.property('secretDigest');
    }
  });

  it('lists with pagination, Total-Number, search and type filters', async () => {
    await createApplication(running, { type: 'SPA', name: 'Needle finder' });
    const res = await running.request('/api/applications?search=%25needle%25&page_size=1&types=SPA');
    expect(res.status).to.equal(200);
    expect(res.headers.get('total-number')).to.equal('1');
    expect(((await res.json()) as Array<{ name: string }>)[0]!.name).to.equal('Needle finder');
    expect((await running.request('/api/applications?page_size=1000')).status).to.equal(400);
  });

  it('rotates the secret: the old one stops working, the new one works', async () => {
    const app = await createApplication(running, { type: 'MachineToMachine' });
    const before = await tokenRequest(running, { grant_type: 'client_credentials' }, app);
    expect(before.status).to.equal(200);
    const rotated = (await (
      await running.request(`/api/applications/${app.id}/secret`, { method: 'POST' })
    ).json()) as { secret: string };
    expect(rotated.secret).to.be.a('string').and.not.equal(app.secret);
    expect((await tokenRequest(running, { grant_type: 'client_credentials' }, app)).status).to.equal(401);
    expect(
      (await tokenRequest(running, { grant_type: 'client_credentials' }, { id: app.id, secret: rotated.secret }))
        .status,
    ).to.equal(200);
    const spa = await createApplication(running, { type: 'SPA' });
    expect((await running.request(`/api/applications/${spa.id}/secret`, { method: 'POST' })).status).to.equal(422);
  });

  it('enables token exchange per application, never for third-party ones', async () => {
    const app = await createApplication(running, { type: 'Traditional' });
    const enabled = await running.request(`/api/applications/${app.id}`, {
      method: 'PATCH',
      json: { customClientMetadata: { allowTokenExchange: true, maxAllowedGrants: 3 } },
    });
    expect(((await enabled.json()) as { customClientMetadata: unknown }).customClientMetadata).to.deep.equal({
      allowTokenExchange: true,
      maxAllowedGrants: 3,
    });
    const thirdParty = await running.request(`/api/applications/${app.id}`, {
      method: 'PATCH',
      json: { isThirdParty: true },
    });
    expect(thirdParty.status).to.equal(422);
    expect(((await thirdParty.json()) as { code: string }).code).to.equal('application.third_party_token_exchange');
  });

  it('refuses a third-party MachineToMachine application, at creation and by PATCH', async () => {
    const created = await running.request('/api/applications', {
      method: 'POST',
      json: { name: 'partner', type: 'MachineToMachine', isThirdParty: true },
    });
    expect(created.status).to.equal(400);
    expect(((await created.json()) as { code: string }).code).to.equal(
      'application.invalid_third_party_application_type',
    );
    const m2m = await createApplication(running, { type: 'MachineToMachine' });
    const patched = await running.request(`/api/applications/${m2m.id}`, {
      method: 'PATCH',
      json: { isThirdParty: true },
    });
    expect(patched.status).to.equal(400);
    expect(((await patched.json()) as { code: string }).code).to.equal(
      'application.invalid_third_party_application_type',
    );
    expect(
      ((await (await running.request(`/api/applications/${m2m.id}`)).json()) as { isThirdParty: boolean }).isThirdParty,
    ).to.equal(false);
    const spa = await running.request('/api/applications', {
      method: 'POST',
      json: { name: 'partner', type: 'SPA', isThirdParty: true },
    });
    expect(spa.status).to.equal(201);
  });

  it('assigns only M2M roles, only to M2M applications', async () => {
    const m2m = await createApplication(running, { type: 'MachineToMachine' });
    const spa = await createApplication(running, { type: 'SPA' });
    const m2mRole = await createRole(running, [], 'MachineToMachine');
    const userRole = await createRole(running, [], 'User');
    expect(
      (await running.request(`/api/applications/${m2m.id}/roles`, { method: 'POST', json: { roleIds: [m2mRole.id] } }))
        .status,
    ).to.equal(201);
    expect(
      (await running.request(`/api/applications/${m2m.id}/roles`, { method: 'POST', json: { roleIds: [userRole.id] } }))
        .status,
    ).to.equal(422);
    expect(
      (await running.request(`/api/applications/${spa.id}/roles`, { method: 'POST', json: { roleIds: [m2mRole.id] } }))
        .status,
    ).to.equal(422);
    expect(
      (await running.request(`/api/applications/${m2m.id}/roles`, { method: 'POST', json: { roleIds: ['nope'] } }))
        .status,
    ).to.equal(404);
    const listed = (await (await running.request(`/api/applications/${m2m.id}/roles`)).json()) as Array<{ id: string }>;
    expect(listed.map((role) => role.id)).to.deep.equal([m2mRole.id]);
    expect(
      (await running.request(`/api/applications/${m2m.id}/roles/${m2mRole.id}`, { method: 'DELETE' })).status,
    ).to.equal(204);
    expect(
      (await running.request(`/api/applications/${m2m.id}/roles/${m2mRole.id}`, { method: 'DELETE' })).status,
    ).to.equal(404);
  });

  it('deleting an application ends its tokens and memberships; the bootstrap admin cannot be deleted', async () => {
    const app = await createApplication(running, {
      type: 'MachineToMachine',
      customClientMetadata: { allowTokenExchange: true },
    });
    const org = (await (
      await running.request('/api/organizations', { method: 'POST', json: { name: 'Acme' } })
    ).json()) as { id: string };
    expect(
      (
        await running.request(`/api/organizations/${org.id}/applications`, {
          method: 'POST',
          json: { applicationIds: [app.id] },
        })
      ).status,
    ).to.be.oneOf([200, 201]);
    const user = await createUser(running);
    const exchanged = await tokenRequest(
      running,
      {
        grant_type: GRANT,
        subject_token_type: AT,
        subject_token: await subjectToken(running, user.id),
        scope: 'openid',
      },
      app,
    );
    const userinfo = () =>
      fetch(`${running.baseUrl}/oidc/me`, { headers: { authorization: `Bearer ${exchanged.body.access_token}` } });
    expect((await userinfo()).status).to.equal(200);

    expect((await running.request(`/api/applications/${app.id}`, { method: 'DELETE' })).status).to.equal(204);
    expect((await running.request(`/api/applications/${app.id}`)).status).to.equal(404);
    expect((await userinfo()).status).to.equal(401);
    const members = await running.request(`/api/organizations/${org.id}/applications`);
    expect(members.headers.get('total-number')).to.equal('0');
    expect((await tokenRequest(running, { grant_type: 'client_credentials' }, app)).status).to.equal(401);

    const admin = await running.request('/api/applications/test-admin', { method: 'DELETE' });
    expect(admin.status).to.equal(422);
  });
});
