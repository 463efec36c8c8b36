import { expect } from 'chai';
import { startService, type RunningService } from '../support/service.ts';
import { createApplication } from '../support/fixtures.ts';

const REDIS_URL = 'redis://127.0.0.1:6379';
const LIMIT = 5;

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

async function tokenRequest(running: RunningService, form: Record<string, string>, authorization?: string) {
  const res = await fetch(`${running.baseUrl}/oidc/token`, {
    method: 'POST',
    body: new URLSearchParams(form),
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(authorization ? { authorization } : {}) },
  });
  return {
    status: res.status,
    retryAfter: res.headers.get('retry-after'),
    body: (await res.json()) as Record<string, unknown>,
  };
}

const clientCredentials = (running: RunningService, app: { id: string; secret: string }, secret = app.secret) =>
  tokenRequest(running, { grant_type: 'client_credentials' }, basic(app.id, secret));

async function machineClient(running: RunningService): Promise<{ id: string; secret: string }> {
  const created = await createApplication(running, { type: 'MachineToMachine' });
  return { id: created.id, secret: created.secret! };
}

async function tokensIssued(running: RunningService): Promise<number> {
  const text = await (await fetch(`${running.baseUrl}/metrics`)).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith('oidc_tokens_issued_total'))
    .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
}

describe('per-client token-request limit: off by default', () => {
  let running: RunningService;
  before(async () => {
    running = await startService();
  });
  after(() => running.close());

  it('lets one client make many more token requests than a limit would', async () => {
    const app = await machineClient(running);
    for (let i = 0; i < LIMIT * 4; i += 1) expect((await clientCredentials(running, app)).status).to.equal(200);
  });
});

for (const backend of [
  { name: 'embedded counters', redisUrl: undefined },
  { name: 'Redis', redisUrl: REDIS_URL },
]) {
  describe(`per-client token-request limit (${backend.name})`, () => {
    let running: RunningService;

    before(async () => {
      running = await startService({
        env: {
          REDIS_URL: backend.redisUrl,
          TOKEN_RATE_LIMIT_PER_CLIENT: String(LIMIT),
          TOKEN_RATE_LIMIT_WINDOW_SECONDS: '60',
        },
      });
    });
    after(() => running.close());

    it('answers the request past the limit 429 with Retry-After, counting failures too; another client is unaffected', async () => {
      const [app, other] = [await machineClient(running), await machineClient(running)];
      for (let i = 0; i < LIMIT - 1; i += 1) expect((await clientCredentials(running, app)).status).to.equal(200);
      expect((await clientCredentials(running, app, 'wrong-secret')).status).to.equal(401);
      const issued = await tokensIssued(running);
      const limited = await clientCredentials(running, app);
      expect(limited.status).to.equal(429);
      expect(limited.body.error).to.equal('temporarily_unavailable');
      expect(limited.body.error_description)
        .to.be.a('string')
        .and.match(/token requests/);
      expect(Number(limited.retryAfter)).to.be.within(1, 60);
      expect(await tokensIssued(running)).to.equal(issued);
      expect((await clientCredentials(running, other)).status).to.equal(200);
      const metrics = await (await fetch(`${running.baseUrl}/metrics`)).text();
      expect(metrics).to.match(/^rate_limit_hits_total\{limit="token_requests"\} 1$/m);
    });

    it('counts a public client named in the form body', async () => {
      const spa = await createApplication(running, {
        type: 'SPA',
        oidcClientMetadata: { redirectUris: ['http://127.0.0.1/callback'], postLogoutRedirectUris: [] },
      });
      const form = {
        grant_type: 'authorization_code',
        client_id: spa.id,
        code: 'not-a-code',
        redirect_uri: 'http://127.0.0.1/callback',
        code_verifier: 'v'.repeat(43),
      };
      for (let i = 0; i < LIMIT; i += 1)
        expect((await tokenRequest(running, form)).body.error).to.equal('invalid_grant');
      const limited = await tokenRequest(running, form);
      expect(limited.status).to.equal(429);
      expect(Number(limited.retryAfter)).to.be.within(1, 60);
    });

    it('lets exactly the limit of 100 concurrent requests of one client through', async () => {
      const app = await machineClient(running);
      const results = await Promise.all(Array.from({ length: 100 }, () => clientCredentials(running, app)));
      const statuses = results.map((result) => result.status);
      expect(statuses.filter((status) => status === 200)).to.have.length(LIMIT);
      expect(statuses.filter((status) => status === 429)).to.have.length(100 - LIMIT);
      for (const result of results.filter((r) => r.status === 429))
        expect(Number(result.retryAfter)).to.be.within(1, 60);
    });
  });
}
