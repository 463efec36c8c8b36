import { expect } from 'chai';
import { createManagementApi } from '@logto/api/management';
import { decodeJwt } from 'jose';
import { ADMIN, startService, type RunningService } from '../support/service.ts';
import { newId } from '../../lib/ids.ts';

/**
 * Logto's own Management API client, unchanged: only `baseUrl` (and, in one case, `apiIndicator`) set, as a Logto
 * customer switching over would. Without `apiIndicator` it asks for Logto OSS's `https://default.logto.app/api`.
 */
describe('@logto/api against the service', () => {
  let running: RunningService;

  before(async () => {
    running = await startService();
  });
  after(() => running.close());

  const clientOf = (apiIndicator?: string) =>
    createManagementApi('default', {
      clientId: ADMIN.id,
      clientSecret: ADMIN.secret,
      baseUrl: running.baseUrl,
      ...(apiIndicator && { apiIndicator }),
    });

  it("gets a token for Logto's fixed management indicator when told no other, and one for the service's own when told", async () => {
    const logtoDefault = await clientOf().clientCredentials.getAccessToken();
    expect(decodeJwt(logtoDefault.value)).to.include({ aud: 'https://default.logto.app/api', scope: 'all' });
    const own = await clientOf(`${running.baseUrl}/api`).clientCredentials.getAccessToken();
    expect(decodeJwt(own.value)).to.include({ aud: `${running.baseUrl}/api`, scope: 'all' });
    const { apiClient } = clientOf(`${running.baseUrl}/api`);
    const users = await apiClient.GET('/api/users');
    expect(users.response.status).to.equal(200);
  });

  it('does the Management API calls of a day of work', async () => {
    const { apiClient } = clientOf();
    const tag = newId(6).toLowerCase();

    const user = await apiClient.POST('/api/users', {
      body: {
        username: `ada_${tag}`,
        primaryEmail: `ada.${tag}@example.com`,
        password: 'Correct-Horse-7',
        name: 'Ada',
      },
    });
    expect(user.response.status, JSON.stringify(user.error)).to.equal(201);
    const userId = user.data!.id;

    // Logto's document says `search_params` is a form-style object: its keys are query parameters of their own.
    const found = await apiClient.GET('/api/users', {
      params: { query: { search_params: { search: `%ada.${tag}%` } } },
      querySerializer: { object: { style: 'form', explode: true } },
    });
    expect(found.data!.map((one) => one.id)).to.deep.equal([userId]);
    expect(found.response.headers.get('total-number')).to.equal('1');

    const renamed = await apiClient.PATCH('/api/users/{userId}', {
      params: { path: { userId } },
      body: { name: 'Ada Lovelace' },
    });
    expect(renamed.data!.name).to.equal('Ada Lovelace');
    const customData = await apiClient.PATCH('/api/users/{userId}/custom-data', {
      params: { path: { userId } },
      body: { customData: { plan: 'pro' } },
    });
    expect(customData.data).to.deep.equal({ plan: 'pro' });

    const resource = await apiClient.POST('/api/resources', {
      body: { name: 'Orders', indicator: `https://orders-${tag}.example.com` },
    });
    expect(resource.response.status, JSON.stringify(resource.error)).to.equal(201);
    const scope = await apiClient.POST('/api/resources/{resourceId}/scopes', {
      params: { path: { resourceId: resource.data!.id } },
      body: { name: 'read:orders', description: 'Read orders' },
    });
    expect(scope.response.status, JSON.stringify(scope.error)).to.equal(201);

    const role = await apiClient.POST('/api/roles', {
      body: { name: `clerk_${tag}`, description: 'Clerks', scopeIds: [scope.data!.id] },
    });
    expect(role.response.status, JSON.stringify(role.error)).to.equal(201);
    const assigned = await apiClient.POST('/api/users/{userId}/roles', {
      params: { path: { userId } },
      body: { roleIds: [role.data!.id] },
    });
    expect(assigned.response.status, JSON.stringify(assigned.error)).to.be.within(200, 201);
    const roles = await apiClient.GET('/api/users/{userId}/roles', { params: { path: { userId } } });
    expect(roles.data!.map((one) => one.name)).to.deep.equal([`clerk_${tag}`]);

    const app = await apiClient.POST('/api/applications', {
      // Logto's generated types describe redirect URIs loosely (not as strings): the payload is Logto's all the same.
      body: {
        name: 'Notes',
        type: 'Traditional',
        oidcClientMetadata: {
          redirectUris: ['https://notes.example.com/callback'],
          postLogoutRedirectUris: [],
        } as never,
      },
    });
    expect(app.response.status, JSON.stringify(app.error)).to.equal(201);
    expect(app.data!.secret).to.be.a('string');

    const organization = await apiClient.POST('/api/organizations', { body: { name: `Acme ${tag}` } });
    expect(organization.response.status, JSON.stringify(organization.error)).to.equal(201);
    const id = organization.data!.id;
    const orgRole = await apiClient.POST('/api/organization-roles', {
      body: { name: `member_${tag}`, organizationScopeIds: [], resourceScopeIds: [] },
    });
    expect(orgRole.response.status, JSON.stringify(orgRole.error)).to.equal(201);
    await apiClient.POST('/api/organizations/{id}/users', { params: { path: { id } }, body: { userIds: [userId] } });
    await apiClient.POST('/api/organizations/{id}/users/{userId}/roles', {
      params: { path: { id, userId } },
      body: { organizationRoleIds: [orgRole.data!.id] },
    });
    const members = await apiClient.GET('/api/organizations/{id}/users', { params: { path: { id } } });
    expect(members.data!.map((member) => [member.id, member.organizationRoles.map((one) => one.name)])).to.deep.equal([
      [userId, [`member_${tag}`]],
    ]);
    const ofUser = await apiClient.GET('/api/users/{userId}/organizations', { params: { path: { userId } } });
    expect(ofUser.data!.map((one) => one.id)).to.deep.equal([id]);

    const suspended = await apiClient.PATCH('/api/users/{userId}/is-suspended', {
      params: { path: { userId } },
      body: { isSuspended: true },
    });
    expect(suspended.data!.isSuspended).to.equal(true);
    const removed = await apiClient.DELETE('/api/users/{userId}', { params: { path: { userId } } });
    expect(removed.response.status).to.equal(204);
    const gone = await apiClient.GET('/api/users/{userId}', { params: { path: { userId } } });
    expect(gone.response.status).to.equal(404);
    expect((gone.error as unknown as { code?: string }).code).to.be.a('string');
  });
});
