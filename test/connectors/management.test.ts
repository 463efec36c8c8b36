import { expect } from 'chai';
import { startService, type RunningService } from '../support/service.ts';
import { json } from '../support/experience.ts';

describe('Connectors through the management API', () => {
  let upstream: RunningService;
  let service: RunningService;

  before(async () => {
    upstream = await startService();
    service = await startService();
  });
  after(async () => {
    await service.close();
    await upstream.close();
  });

  const create = (body: unknown) => service.request('/api/connectors', { method: 'POST', json: body });

  it('lists the factories, creates an OIDC connector by discovery and never answers its secret in full', async () => {
    const factories = await json(service.request('/api/connector-factories'));
    expect(factories.map((factory: { id: string }) => factory.id)).to.deep.equal(['oidc', 'oauth2']);
    const secret = 'upstream-client-secret-0123456789';
    const res = await create({
      connectorId: 'oidc',
      metadata: { target: 'upstream', name: { en: 'Upstream' } },
      config: { clientId: 'downstream', clientSecret: secret, issuer: `${upstream.baseUrl}/oidc` },
    });
    const created = await json(res);
    expect(res.status, JSON.stringify(created)).to.equal(201);
    expect(created).to.deep.include({
      connectorId: 'oidc',
      type: 'Social',
      target: 'upstream',
      name: { en: 'Upstream' },
      syncProfile: false,
    });
    expect(created.config).to.include({
      clientId: 'downstream',
      clientSecret: '********6789',
      scope: 'openid profile email',
    });
    expect(JSON.stringify(await json(service.request('/api/connectors')))).not.to.include(secret);
    expect(
      (await json(service.request('/api/connectors?target=upstream'))).map((item: { id: string }) => item.id),
    ).to.deep.equal([created.id]);
    expect(await json(service.request('/api/connectors?target=nothing'))).to.deep.equal([]);
    expect((await service.request('/api/connectors?platform=Web')).status).to.equal(400);
    const stored = await service.service.core.store.collection('connectors').findOne({ _id: created.id });
    expect(JSON.stringify(stored)).not.to.include(secret);

    // Sending the masked secret back keeps the stored one; the connector still works with it.
    const patched = await service.request(`/api/connectors/${created.id}`, {
      method: 'PATCH',
      json: { config: { ...created.config, scope: 'openid email' }, syncProfile: true },
    });
    expect(patched.status).to.equal(200);
    const usable = await service.service.core.connectors.usableSocial(created.id);
    expect(usable.usable.clientSecret).to.equal(secret);
    expect((await json(patched)).config.scope).to.equal('openid email');
  });

  it('refuses bad configs with 4xx codes: unknown factory, invalid or unreachable config, duplicate target, unknown id', async () => {
    const unknownFactory = await create({ connectorId: 'saml', metadata: { target: 'x' }, config: {} });
    expect(unknownFactory.status).to.equal(422);
    expect((await json(unknownFactory)).code).to.equal('connector.not_found_with_connector_id');

    const missing = await create({
      connectorId: 'oauth2',
      metadata: { target: 'x' },
      config: { clientId: 'a', clientSecret: 'b' },
    });
    expect(missing.status).to.equal(400);
    expect((await json(missing)).code).to.equal('connector.invalid_config');

    const plainHttp = await create({
      connectorId: 'oidc',
      metadata: { target: 'x' },
      config: { clientId: 'a', clientSecret: 'b', issuer: 'http://idp.example.com/oidc' },
    });
    expect(plainHttp.status).to.equal(400);
    expect(JSON.stringify(await json(plainHttp))).to.include('must use https');

    const unknownSetting = await create({
      connectorId: 'oidc',
      metadata: { target: 'x' },
      config: { clientId: 'a', clientSecret: 'b', issuer: `${upstream.baseUrl}/oidc`, prompt: 'login' },
    });
    expect(unknownSetting.status).to.equal(400);

    const notAnIssuer = await create({
      connectorId: 'oidc',
      metadata: { target: 'x' },
      config: { clientId: 'a', clientSecret: 'b', issuer: `${upstream.baseUrl}/nothing` },
    });
    expect(notAnIssuer.status).to.equal(400);
    expect((await json(notAnIssuer)).code).to.equal('connector.invalid_config');

    const privateAddress = await create({
      connectorId: 'oidc',
      metadata: { target: 'x' },
      config: { clientId: 'a', clientSecret: 'b', issuer: 'https://10.255.255.1/oidc' },
    });
    expect(privateAddress.status).to.equal(502);
    expect((await json(privateAddress)).code).to.equal('connector.upstream_unreachable');

    const config = { clientId: 'a', clientSecret: 'b', issuer: `${upstream.baseUrl}/oidc` };
    expect((await create({ connectorId: 'oidc', metadata: { target: 'twice' }, config })).status).to.equal(201);
    const twice = await create({ connectorId: 'oauth2', metadata: { target: 'twice' }, config });
    expect(twice.status).to.equal(409);
    expect((await json(twice)).code).to.equal('connector.multiple_target_with_same_platform');

    for (const [method, path] of [
      ['GET', '/api/connectors/nope'],
      ['PATCH', '/api/connectors/nope'],
      ['DELETE', '/api/connectors/nope'],
      ['GET', '/api/sso-connectors/nope'],
      ['DELETE', '/api/sso-connectors/nope'],
    ] as const) {
      const res = await service.request(path, { method, ...(method === 'PATCH' && { json: { syncProfile: true } }) });
      expect(res.status, `${method} ${path}`).to.equal(404);
      expect((await json(res)).code).to.equal('entity.not_exists_with_id');
    }
  });

  it('creates enterprise SSO connectors with unique names and domains', async () => {
    const providers = await json(service.request('/api/sso-connector-providers'));
    expect(providers[0]).to.include({ providerName: 'OIDC', providerType: 'oidc' });
    const res = await service.request('/api/sso-connectors', {
      method: 'POST',
      json: {
        providerName: 'OIDC',
        connectorName: 'Acme',
        domains: ['Acme.example.com'],
        branding: { displayName: 'Acme SSO' },
        config: { clientId: 'a', clientSecret: 'sso-secret-abcdefgh', issuer: `${upstream.baseUrl}/oidc` },
      },
    });
    const created = await json(res);
    expect(res.status, JSON.stringify(created)).to.equal(201);
    expect(created).to.deep.include({
      providerName: 'OIDC',
      providerType: 'oidc',
      domains: ['acme.example.com'],
      syncProfile: false,
    });
    expect(created.config.clientSecret).to.equal('********efgh');

    const sameDomain = await service.request('/api/sso-connectors', {
      method: 'POST',
      json: { providerName: 'OIDC', connectorName: 'Other', domains: ['acme.example.com'] },
    });
    expect(sameDomain.status).to.equal(409);
    expect((await json(sameDomain)).code).to.equal('single_sign_on.duplicated_domains');
    const sameName = await service.request('/api/sso-connectors', {
      method: 'POST',
      json: { providerName: 'OIDC', connectorName: 'Acme' },
    });
    expect((await json(sameName)).code).to.equal('single_sign_on.duplicate_connector_name');
    const badDomain = await service.request('/api/sso-connectors', {
      method: 'POST',
      json: { providerName: 'OIDC', connectorName: 'Bad', domains: ['not a domain'] },
    });
    expect(badDomain.status).to.equal(400);
    expect((await json(badDomain)).code).to.equal('single_sign_on.invalid_domain_format');
    const saml = await service.request('/api/sso-connectors', {
      method: 'POST',
      json: { providerName: 'SAML', connectorName: 'S' },
    });
    expect(saml.status).to.equal(422);
    expect((await json(saml)).code).to.equal('connector.not_found');

    const list = await service.request('/api/sso-connectors');
    expect(list.headers.get('total-number')).to.equal('1');
    const deleted = await service.request(`/api/sso-connectors/${created.id}`, { method: 'DELETE' });
    expect(deleted.status).to.equal(204);
  });

  it('gives one social identity to exactly one of 100 users linking it at once', async () => {
    const users = await Promise.all(
      Array.from({ length: 100 }, (_, index) =>
        json(service.request('/api/users', { method: 'POST', json: { username: `racer_${index}_${Date.now()}` } })),
      ),
    );
    const answers = await Promise.all(
      users.map((user) =>
        service.request(`/api/users/${user.id}/identities/race`, {
          method: 'PUT',
          json: { userId: 'one-identity' },
        }),
      ),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 201)).to.have.length(1);
    expect(statuses.filter((status) => status === 409)).to.have.length(99);
    const holders = [];
    for (const user of users) {
      const stored = await json(service.request(`/api/users/${user.id}`));
      if (stored.identities.race) holders.push(stored.id);
    }
    expect(holders).to.have.length(1);
  });
});
