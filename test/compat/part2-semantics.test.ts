import { expect } from 'chai';
import { fixtures, ok, startHarness, unique, type Harness } from '../support/management/harness.ts';

/** Logto's write semantics: replaced custom client metadata, one default resource, no invitation for a member. */
describe('Logto compatibility: write semantics', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  it('replaces customClientMetadata on PATCH: a setting left out goes back to its default', async () => {
    const app = await ok(
      h.api('POST', '/applications', {
        name: unique('app'),
        type: 'Traditional',
        customClientMetadata: { allowTokenExchange: true, maxAllowedGrants: 3 },
      }),
    );
    expect(app.customClientMetadata).to.deep.equal({ allowTokenExchange: true, maxAllowedGrants: 3 });
    const patched = await ok(
      h.api('PATCH', `/applications/${app.id}`, { customClientMetadata: { maxAllowedGrants: 5 } }),
    );
    expect(patched.customClientMetadata, 'stored as given').to.deep.equal({ maxAllowedGrants: 5 });
    expect((await ok(h.api('GET', `/applications/${app.id}`))).customClientMetadata).to.deep.equal(
      patched.customClientMetadata,
    );
  });

  it('still refuses token exchange on a third-party application, whatever the PATCH carries', async () => {
    const app = await ok(
      h.api('POST', '/applications', { name: unique('third'), type: 'Traditional', isThirdParty: true }),
    );
    const refused = await h.api('PATCH', `/applications/${app.id}`, {
      customClientMetadata: { allowTokenExchange: true },
    });
    expect([refused.status, refused.body.code]).to.deep.equal([422, 'application.third_party_token_exchange']);
  });

  it('answers 422 entity.invalid_input to an update that names nothing, as Logto', async () => {
    const user = await fixtures(h).user();
    const role = await fixtures(h).role();
    const app = await fixtures(h).m2mApplication();
    const organization = await fixtures(h).organization();
    const { resource, scopes } = await fixtures(h).resourceWithScopes(1);
    const hook = await ok(h.api('POST', '/hooks', { event: 'PostRegister', config: { url: 'http://127.0.0.1:9/h' } }));
    const paths = [
      `/users/${user.id}`,
      `/roles/${role.id}`,
      `/applications/${app.id}`,
      `/organizations/${organization.id}`,
      `/resources/${resource.id}`,
      `/resources/${resource.id}/scopes/${scopes[0].id}`,
      `/hooks/${hook.id}`,
      `/organization-roles/${(await fixtures(h).organizationRole()).id}`,
      `/organization-scopes/${(await fixtures(h).organizationScope()).id}`,
    ];
    for (const path of paths) {
      const res = await h.api('PATCH', path, {});
      expect([res.status, res.body.code], path).to.deep.equal([422, 'entity.invalid_input']);
    }
    expect((await h.api('PATCH', `/users/${user.id}`, { name: 'Named' })).status).to.equal(200);
  });

  it('answers an SSO connector unchanged to an update that names nothing, as Logto', async () => {
    const connector = await ok(
      h.api('POST', '/sso-connectors', { providerName: 'OIDC', connectorName: unique('sso') }),
    );
    const res = await h.api('PATCH', `/sso-connectors/${connector.id}`, {});
    expect([res.status, res.body]).to.deep.equal([200, connector]);
  });

  it('keeps at most one default resource', async () => {
    const make = () =>
      ok(
        h.api('POST', '/resources', {
          name: unique('api'),
          indicator: `https://${unique('d').toLowerCase()}.example.com`,
        }),
      );
    const [first, second] = [await make(), await make()];
    await ok(h.api('PATCH', `/resources/${first.id}/is-default`, { isDefault: true }));
    await ok(h.api('PATCH', `/resources/${second.id}/is-default`, { isDefault: true }));
    const defaults = (await ok(h.api('GET', '/resources'))).filter(
      (resource: { isDefault: boolean }) => resource.isDefault,
    );
    expect(defaults.map((resource: { id: string }) => resource.id)).to.deep.equal([second.id]);
  });

  it('refuses to invite someone who already is a member with 422 request.invalid_input, and creates nothing', async () => {
    const organization = await fixtures(h).organization();
    const email = `${unique('member').toLowerCase()}@example.com`;
    await fixtures(h).member(organization.id, { primaryEmail: email });
    const refused = await h.api('POST', '/organization-invitations', {
      invitee: email.toUpperCase(),
      organizationId: organization.id,
      expiresAt: Date.now() + 60_000,
    });
    expect([refused.status, refused.body.code]).to.deep.equal([422, 'request.invalid_input']);
    const listed = await ok(h.api('GET', `/organization-invitations?organizationId=${organization.id}`));
    expect(listed).to.deep.equal([]);
    const stranger = await h.api('POST', '/organization-invitations', {
      invitee: `${unique('new').toLowerCase()}@example.com`,
      organizationId: organization.id,
      expiresAt: Date.now() + 60_000,
    });
    expect(stranger.status).to.equal(201);
  });
});
