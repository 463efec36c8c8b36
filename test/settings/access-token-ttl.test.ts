import { expect } from 'chai';
import { startService, type RunningService } from '../support/service.ts';
import { createApplication, createUser, tokenRequest } from '../support/fixtures.ts';
import { PASSWORD, createInteractiveApp, lifetimeOf, signIn } from '../support/settings.ts';

/** What docs/configuration.md promises about ACCESS_TOKEN_TTL_SECONDS, and about each resource's own accessTokenTtl. */
describe('access token lifetimes', () => {
  let running: RunningService;
  let m2m: { id: string; secret?: string };

  before(async () => {
    running = await startService({ env: { ACCESS_TOKEN_TTL_SECONDS: '900' } });
    m2m = await createApplication(running, { type: 'MachineToMachine' });
  });
  after(() => running.close());

  async function createResource(indicator: string, accessTokenTtl?: number) {
    const res = await running.request('/api/resources', {
      method: 'POST',
      json: { name: indicator, indicator, ...(accessTokenTtl && { accessTokenTtl }) },
    });
    expect(res.status).to.equal(201);
    return res.json() as Promise<{ id: string; accessTokenTtl: number }>;
  }

  async function clientCredentials(resource?: string) {
    const res = await tokenRequest(running, { grant_type: 'client_credentials', resource }, m2m);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return { token: String(res.body.access_token), expiresIn: res.body.expires_in };
  }

  it('ACCESS_TOKEN_TTL_SECONDS: client-credentials tokens without resource', async () => {
    expect((await clientCredentials()).expiresIn).to.equal(900);
  });

  it('ACCESS_TOKEN_TTL_SECONDS: userinfo tokens of a sign-in, not its ID token', async () => {
    const user = await createUser(running, [], {}, PASSWORD);
    const tokens = await signIn(running, await createInteractiveApp(running, 'SPA'), String(user.username), {
      scope: 'openid',
    });
    expect(tokens.expires_in).to.equal(900);
    expect(lifetimeOf(tokens.id_token!)).to.equal(3600);
  });

  it('ACCESS_TOKEN_TTL_SECONDS: the lifetime given to a resource created without one', async () => {
    const resource = await createResource('https://defaulted.example.com');
    expect(resource.accessTokenTtl).to.equal(900);
    const { token, expiresIn } = await clientCredentials('https://defaulted.example.com');
    expect(expiresIn).to.equal(900);
    expect(lifetimeOf(token)).to.equal(900);
  });

  it("a resource's own accessTokenTtl, at creation and after an update, for tokens of that resource", async () => {
    const resource = await createResource('https://own.example.com', 120);
    expect(lifetimeOf((await clientCredentials('https://own.example.com')).token)).to.equal(120);
    const patched = await running.request(`/api/resources/${resource.id}`, {
      method: 'PATCH',
      json: { accessTokenTtl: 300 },
    });
    expect(patched.status).to.equal(200);
    const { token, expiresIn } = await clientCredentials('https://own.example.com');
    expect(expiresIn).to.equal(300);
    expect(lifetimeOf(token)).to.equal(300);
  });

  it('not the management API, whose resource keeps its own hour', async () => {
    expect(lifetimeOf(await running.adminToken())).to.equal(3600);
  });

  it("a resource's lifetime also applies to impersonation tokens for it", async () => {
    await createResource('https://exchange.example.com', 180);
    const app = await createApplication(running, {
      type: 'Traditional',
      customClientMetadata: { allowTokenExchange: true },
    });
    const user = await createUser(running);
    const created = await running.request('/api/subject-tokens', { method: 'POST', json: { userId: user.id } });
    const { subjectToken } = (await created.json()) as { subjectToken: string };
    const exchanged = await tokenRequest(
      running,
      {
        grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
        subject_token: subjectToken,
        subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
        resource: 'https://exchange.example.com',
      },
      app,
    );
    expect(exchanged.status, JSON.stringify(exchanged.body)).to.equal(200);
    expect(exchanged.body.expires_in).to.equal(180);
    expect(lifetimeOf(String(exchanged.body.access_token))).to.equal(180);
  });
});
