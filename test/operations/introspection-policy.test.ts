import { expect } from 'chai';
import { createIntrospectionPolicy } from '../../lib/oidc/introspection.ts';

/** Opaque tokens for an API are not issued today (every API token is a JWT), so the audience rule is checked here. */
describe('introspection policy', () => {
  const API = { id: 'res_1', indicator: 'https://api.example.com' };
  // `rs` holds a scope of API through its roles; `stranger` holds none.
  const scopes: Record<string, string[]> = { rs: ['read'], stranger: [] };
  const allowed = createIntrospectionPolicy({
    repositories: {
      resources: { findByIndicator: async (indicator: string) => (indicator === API.indicator ? API : null) },
    },
    authorization: {
      scopesForApplication: async (clientId: string, resourceId: string) =>
        resourceId === API.id ? (scopes[clientId] ?? []) : [],
    },
  });

  it("allows the token's own client, whatever the token", async () => {
    for (const kind of ['AccessToken', 'ClientCredentials', 'RefreshToken']) {
      expect(await allowed({}, { clientId: 'owner' }, { kind, clientId: 'owner' }), kind).to.equal(true);
    }
  });

  it("allows the resource server of the token's audience, for access tokens only", async () => {
    expect(
      await allowed({}, { clientId: 'rs' }, { kind: 'AccessToken', clientId: 'owner', aud: API.indicator }),
    ).to.equal(true);
    expect(
      await allowed({}, { clientId: 'rs' }, { kind: 'ClientCredentials', clientId: 'owner', aud: [API.indicator] }),
    ).to.equal(true);
    expect(
      await allowed({}, { clientId: 'rs' }, { kind: 'RefreshToken', clientId: 'owner', aud: API.indicator }),
    ).to.equal(false);
  });

  it('refuses clients without a scope of the audience, unknown audiences and tokens without one', async () => {
    expect(
      await allowed({}, { clientId: 'stranger' }, { kind: 'AccessToken', clientId: 'owner', aud: API.indicator }),
    ).to.equal(false);
    expect(
      await allowed(
        {},
        { clientId: 'rs' },
        { kind: 'AccessToken', clientId: 'owner', aud: 'https://other.example.com' },
      ),
    ).to.equal(false);
    expect(await allowed({}, { clientId: 'rs' }, { kind: 'AccessToken', clientId: 'owner' })).to.equal(false);
  });
});
