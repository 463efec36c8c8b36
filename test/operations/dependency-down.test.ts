import { expect } from 'chai';
import { startService, type RunningService } from '../support/service.ts';
import { createApplication, createResource, createUser } from '../support/fixtures.ts';

describe('a backing store that is down', () => {
  let running: RunningService;
  before(async () => {
    // Nothing listens on port 1: every Redis command fails once its retries are used up.
    running = await startService({ env: { REDIS_URL: 'redis://127.0.0.1:1' } });
  });
  after(() => running.close());

  it('answers 503 with a stable code on the management API and on the token endpoint, and readiness says why', async () => {
    const user = await createUser(running);
    const res = await running.request('/api/subject-tokens', { method: 'POST', json: { userId: user.id } });
    expect(res.status).to.equal(503);
    expect(await res.json()).to.deep.include({ code: 'service.dependency_unavailable' });

    await createResource(running, 'https://down.example.com', ['read']);
    const app = await createApplication(running, {
      type: 'Traditional',
      customClientMetadata: { allowTokenExchange: true },
    });
    const token = await fetch(`${running.baseUrl}/oidc/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${app.id}:${app.secret}`).toString('base64')}` },
      body: new URLSearchParams({
        grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
        subject_token: 'sub_tk_anything',
        subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      }),
    });
    expect(token.status).to.equal(503);
    expect(((await token.json()) as { error: string }).error).to.equal('temporarily_unavailable');

    const ready = await fetch(`${running.baseUrl}/readyz`);
    expect(ready.status).to.equal(503);
    expect(await ready.json()).to.deep.equal({
      status: 'unavailable',
      checks: { documents: 'ok', keyValue: 'unavailable' },
    });
    expect((await fetch(`${running.baseUrl}/healthz`)).status).to.equal(200);
  });
});
