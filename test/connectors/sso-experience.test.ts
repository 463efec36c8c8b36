import { expect } from 'chai';
import { json, uniqueName } from '../support/experience.ts';
import { API_CALLBACK, paramsOf, startFederation, type Federation } from '../support/connectors.ts';

describe('Experience API: enterprise SSO with just-in-time organizations, through a second instance as the provider', () => {
  let f: Federation;

  before(async () => {
    f = await startFederation();
  });
  after(() => f.close());

  async function ssoConnector(domain: string) {
    const res = await f.h.running.request('/api/sso-connectors', {
      method: 'POST',
      json: {
        providerName: 'OIDC',
        connectorName: uniqueName('Acme'),
        domains: [domain],
        syncProfile: true,
        config: { clientId: f.client.id, clientSecret: f.client.secret, issuer: `${f.upstream.baseUrl}/oidc` },
      },
    });
    const body = await json(res);
    expect(res.status, JSON.stringify(body)).to.equal(201);
    return body;
  }

  async function verifiedSso(connectorId: string, person: Awaited<ReturnType<Federation['upstreamUser']>>) {
    const client = f.h.client();
    await client.open(f.h.app);
    await client.ok('PUT', '', { interactionEvent: 'SignIn' });
    const lookup = await client.ok('GET', `/sso-connectors?email=${encodeURIComponent(person.email)}`);
    expect(lookup.connectorIds).to.deep.equal([connectorId]);
    const { authorizationUri, verificationId } = await client.ok(
      'POST',
      `/verification/sso/${connectorId}/authorization-uri`,
      {
        state: 'client-state-sso-1',
        redirectUri: API_CALLBACK,
      },
    );
    await client.ok('POST', `/verification/sso/${connectorId}/verify`, {
      verificationId,
      connectorData: paramsOf(await f.signInUpstream(authorizationUri, person)),
    });
    return { client, verificationId };
  }

  it('registers through the connector into its JIT organizations with their default roles (Organization.Membership.Updated)', async () => {
    const connector = await ssoConnector('acme.example.com');
    const organization = await json(
      f.h.running.request('/api/organizations', { method: 'POST', json: { name: uniqueName('org') } }),
    );
    const role = await json(
      f.h.running.request('/api/organization-roles', { method: 'POST', json: { name: uniqueName('member') } }),
    );
    await f.h.running.request(`/api/organizations/${organization.id}/jit/roles`, {
      method: 'POST',
      json: { organizationRoleIds: [role.id] },
    });
    const linkRes = await f.h.running.request(`/api/organizations/${organization.id}/jit/sso-connectors`, {
      method: 'POST',
      json: { ssoConnectorIds: [connector.id] },
    });
    expect(linkRes.status).to.equal(201);
    const listed = await json(f.h.running.request(`/api/organizations/${organization.id}/jit/sso-connectors`));
    expect(listed.map((item: { id: string }) => item.id)).to.deep.equal([connector.id]);

    const person = await f.upstreamUser(`${uniqueName('emp')}@acme.example.com`, 'Employee One');
    const { client, verificationId } = await verifiedSso(connector.id, person);
    const signIn = await client.api('POST', '/identification', { verificationId });
    expect(signIn.status).to.equal(404);
    expect(signIn.body.code).to.equal('user.identity_not_exist');
    await client.ok('PUT', '/interaction-event', { interactionEvent: 'Register' });
    expect((await client.api('POST', '/identification', { verificationId })).status).to.equal(201);
    const userId = (await client.submitForTokens()).claims()!.sub;

    const membership = await f.h.delivery(
      'Organization.Membership.Updated',
      (payload) => payload.organizationId === organization.id,
    );
    expect(membership).to.deep.include({ addedUserIds: [userId], interactionEvent: 'Register' });
    const roles = await json(f.h.running.request(`/api/organizations/${organization.id}/users/${userId}/roles`));
    expect(roles.map((item: { id: string }) => item.id)).to.deep.equal([role.id]);
    await f.h.delivery('User.Created', (payload) => payload.data.id === userId);
    await f.h.delivery('PostRegister', (payload) => payload.userId === userId);

    const user = await json(f.h.running.request(`/api/users/${userId}?includeSsoIdentities=true`));
    expect(user.primaryEmail).to.equal(person.email);
    expect(user.ssoIdentities).to.have.length(1);
    expect(user.ssoIdentities[0]).to.include({
      issuer: `${f.upstream.baseUrl}/oidc`,
      identityId: person.id,
      ssoConnectorId: connector.id,
    });
    const one = await json(f.h.running.request(`/api/users/${userId}/sso-identities/${connector.id}`));
    expect(one.ssoIdentity.identityId).to.equal(person.id);

    // Signing in again through the connector finds the account by its SSO identity.
    const again = await verifiedSso(connector.id, person);
    expect(
      (await again.client.api('POST', '/identification', { verificationId: again.verificationId })).status,
    ).to.equal(204);
    expect((await again.client.submitForTokens()).claims()!.sub).to.equal(userId);
  });

  it('links an existing account with the same verified email automatically (no second factor asked), and joins the JIT organization then', async () => {
    const connector = await ssoConnector('beta.example.com');
    const organization = await json(
      f.h.running.request('/api/organizations', { method: 'POST', json: { name: uniqueName('org') } }),
    );
    await f.h.running.request(`/api/organizations/${organization.id}/jit/sso-connectors`, {
      method: 'PUT',
      json: { ssoConnectorIds: [connector.id] },
    });
    const person = await f.upstreamUser(`${uniqueName('emp')}@beta.example.com`);
    const existing = await json(
      f.h.running.request('/api/users', { method: 'POST', json: { primaryEmail: person.email } }),
    );
    // A second factor at this service is not asked for: the enterprise provider authenticated the user (as in Logto).
    const factor = await f.h.running.request(`/api/users/${existing.id}/mfa-verifications`, {
      method: 'POST',
      json: { type: 'Totp' },
    });
    expect(factor.status).to.equal(201);

    const { client, verificationId } = await verifiedSso(connector.id, person);
    expect((await client.api('POST', '/identification', { verificationId })).status).to.equal(204);
    expect((await client.submitForTokens()).claims()!.sub).to.equal(existing.id);
    const membership = await f.h.delivery(
      'Organization.Membership.Updated',
      (payload) => payload.organizationId === organization.id,
    );
    expect(membership).to.deep.include({ addedUserIds: [existing.id], interactionEvent: 'SignIn' });
    const updated = await f.h.delivery(
      'User.Data.Updated',
      (payload) => payload.data.id === existing.id && payload.interactionEvent === 'SignIn',
    );
    expect(updated.data.name).to.equal('Upstream Person');
  });

  it('manages JIT SSO connector links with 4xx for unknown ones', async () => {
    const organization = await json(
      f.h.running.request('/api/organizations', { method: 'POST', json: { name: uniqueName('org') } }),
    );
    const unknown = await f.h.running.request(`/api/organizations/${organization.id}/jit/sso-connectors`, {
      method: 'POST',
      json: { ssoConnectorIds: ['nope'] },
    });
    expect(unknown.status, "Logto's 422 for a relation naming nothing").to.equal(422);
    const missing = await f.h.running.request(`/api/organizations/${organization.id}/jit/sso-connectors/nope`, {
      method: 'DELETE',
    });
    expect(missing.status).to.equal(404);
  });

  it('keeps emails of an SSO domain off password and code sign-in and registration (422 session.sso_enabled)', async () => {
    const connector = await ssoConnector('omega.example.com');
    const client = f.h.client();
    await client.open(f.h.app);
    await client.ok('PUT', '', { interactionEvent: 'SignIn' });
    const identifier = { type: 'email', value: `someone@omega.example.com` };
    const password = await client.api('POST', '/verification/password', { identifier, password: 'whatever-it-is' });
    expect(password.status).to.equal(422);
    expect(password.body).to.deep.include({ code: 'session.sso_enabled', data: { connectorIds: [connector.id] } });
    const code = await client.api('POST', '/verification/verification-code', {
      identifier,
      interactionEvent: 'SignIn',
    });
    expect(code.status).to.equal(422);
    await client.ok('PUT', '/interaction-event', { interactionEvent: 'Register' });
    expect(
      (await client.api('POST', '/verification/verification-code', { identifier, interactionEvent: 'Register' }))
        .status,
    ).to.equal(422);
    const other = await client.api('POST', '/verification/password', {
      identifier: { type: 'email', value: 'someone@elsewhere.example.com' },
      password: 'x',
    });
    expect(other.status, 'other domains are not affected').to.equal(422);
    expect(other.body.code).to.equal('session.invalid_credentials');
  });

  it('turns all of enterprise SSO off with singleSignOnEnabled false, and on again with true', async () => {
    const connector = await ssoConnector('sigma.example.com');
    const person = await f.upstreamUser('pat@sigma.example.com');
    const read = async () => json(f.h.running.request('/api/sign-in-exp'));
    expect((await read()).singleSignOnEnabled, 'on by default here').to.equal(true);
    await f.h.signInExperience({ singleSignOnEnabled: false });
    try {
      expect((await read()).singleSignOnEnabled).to.equal(false);
      const client = f.h.client();
      const uid = await client.open(f.h.app);
      const page = await client.browser.request(`${f.h.running.baseUrl}/interaction/${uid}`);
      expect(await page.text(), 'no SSO form on the sign-in page')
        .to.include('Sign in')
        .and.not.include('Work email');
      await client.ok('PUT', '', { interactionEvent: 'SignIn' });
      expect(await client.ok('GET', `/sso-connectors?email=${encodeURIComponent(person.email)}`)).to.deep.equal({
        connectorIds: [],
      });
      const start = await client.api('POST', `/verification/sso/${connector.id}/authorization-uri`, {
        state: 'client-state-off',
        redirectUri: API_CALLBACK,
      });
      expect([start.status, start.body.code]).to.deep.equal([422, 'user.sign_in_method_not_enabled']);
      const password = await client.api('POST', '/verification/password', {
        identifier: { type: 'email', value: person.email },
        password: 'not-the-password',
      });
      expect(password.body.code, "an SSO domain's email is an email like any other").to.equal(
        'session.invalid_credentials',
      );
    } finally {
      await f.h.signInExperience({ singleSignOnEnabled: true });
    }
    await verifiedSso(connector.id, person);
  });
});
