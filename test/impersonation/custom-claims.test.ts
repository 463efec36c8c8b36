import { expect } from 'chai';
import { decodeJwt } from 'jose';
import { startService, type RunningService } from '../support/service.ts';
import { createApplication, createResource, createUser, subjectToken, tokenRequest } from '../support/fixtures.ts';
import { GRANT, AT } from './token-exchange.test.ts';

const INDICATOR = 'https://claims.example.com';
const SCRIPT_PATH = '/api/configs/jwt-customizer/access-token';

describe('custom JWT claims from a stored script', () => {
  let running: RunningService;
  let app: { id: string; secret?: string };
  let user: { id: string };

  before(async () => {
    running = await startService({ env: { JWT_CUSTOMIZER_TIMEOUT_MS: '500' } });
    await createResource(running, INDICATOR, ['read']);
    app = await createApplication(running, { type: 'MachineToMachine', customClientMetadata: { allowTokenExchange: true } });
    user = await createUser(running);
  });
  after(() => running.close());

  const exchange = async (context?: Record<string, unknown>) => tokenRequest(running, {
    grant_type: GRANT, subject_token_type: AT, subject_token: await subjectToken(running, user.id, context), resource: INDICATOR,
  }, app);

  const store = (body: Record<string, unknown>) => running.request(SCRIPT_PATH, { method: 'PUT', json: body });

  it('stores, reads, patches and deletes the script', async () => {
    expect((await running.request(SCRIPT_PATH)).status).to.equal(404);
    const put = await store({ script: 'const getCustomJwtClaims = async () => ({ a: 1 });', environmentVariables: { K: 'v' } });
    expect(put.status).to.equal(200);
    const got = await (await running.request(SCRIPT_PATH)).json() as Record<string, unknown>;
    expect(got).to.include({ blockIssuanceOnError: false });
    expect(got.environmentVariables).to.deep.equal({ K: 'v' });
    const patched = await running.request(SCRIPT_PATH, { method: 'PATCH', json: { blockIssuanceOnError: true } });
    expect(((await patched.json()) as { blockIssuanceOnError: boolean }).blockIssuanceOnError).to.equal(true);
    expect((await running.request(SCRIPT_PATH, { method: 'DELETE' })).status).to.equal(204);
    expect((await running.request(SCRIPT_PATH, { method: 'DELETE' })).status).to.equal(404);
  });

  it('adds the script\'s claims to exchanged tokens, with grant type and subject-token context, never reserved ones', async () => {
    await store({
      script: `const getCustomJwtClaims = async ({ token, context, environmentVariables }) => ({
        grantType: context.grant.type, reason: context.grant.subjectTokenContext.reason,
        env: environmentVariables.STAGE, uid: context.user.id, sub: 'forged', act: { sub: 'x' }, exp: 1,
        orgs: context.user.organizations.map((org) => org.name),
      });`,
      environmentVariables: { STAGE: 'prod' },
    });
    const org = await (await running.request('/api/organizations', { method: 'POST', json: { name: 'Acme' } })).json() as { id: string };
    await running.request(`/api/organizations/${org.id}/users`, { method: 'POST', json: { userIds: [user.id] } });
    const { status, body } = await exchange({ reason: 'support call' });
    expect(status).to.equal(200);
    const claims = decodeJwt(body.access_token as string);
    expect(claims.orgs).to.deep.equal(['Acme']);
    expect(claims).to.include({ grantType: GRANT, reason: 'support call', env: 'prod', uid: user.id, sub: user.id });
    expect(claims.act).to.equal(undefined);
    expect(claims.exp).to.be.greaterThan(Date.now() / 1000);
  });

  it('applies to client-credentials tokens too', async () => {
    await store({ script: 'const getCustomJwtClaims = ({ context }) => ({ grantType: context.grant.type });' });
    const { body } = await tokenRequest(running, { grant_type: 'client_credentials', resource: INDICATOR }, app);
    expect(decodeJwt(body.access_token as string).grantType).to.equal('client_credentials');
  });

  it('api.denyAccess() is access_denied and does not spend the subject token', async () => {
    await store({ script: `const getCustomJwtClaims = ({ context, api }) => {
      if (context.grant.subjectTokenContext.block) api.denyAccess('not this user');
      return {};
    };` });
    const token = await subjectToken(running, user.id, { block: true });
    const denied = await tokenRequest(running, { grant_type: GRANT, subject_token_type: AT, subject_token: token, resource: INDICATOR }, app);
    expect(denied.status).to.equal(400);
    expect(denied.body).to.include({ error: 'access_denied', error_description: 'not this user' });
    await store({ script: 'const getCustomJwtClaims = () => ({});' });
    const again = await tokenRequest(running, { grant_type: GRANT, subject_token_type: AT, subject_token: token, resource: INDICATOR }, app);
    expect(again.status).to.equal(200);
  });

  it('fails open on a script error by default, and closed with blockIssuanceOnError', async () => {
    await store({ script: 'const getCustomJwtClaims = () => { throw new Error("boom"); };' });
    const open = await exchange();
    expect(open.status).to.equal(200);
    await store({ script: 'const getCustomJwtClaims = () => { while (true) {} };', blockIssuanceOnError: true });
    const token = await subjectToken(running, user.id);
    const closed = await tokenRequest(running, { grant_type: GRANT, subject_token_type: AT, subject_token: token, resource: INDICATOR }, app);
    expect(closed.status).to.equal(400);
    expect(closed.body.error).to.equal('invalid_request');
    await store({ script: 'const getCustomJwtClaims = () => ({ ok: true });' });
    const after = await tokenRequest(running, { grant_type: GRANT, subject_token_type: AT, subject_token: token, resource: INDICATOR }, app);
    expect(after.status, 'the failed exchange did not spend the token').to.equal(200);
    expect(decodeJwt(after.body.access_token as string).ok).to.equal(true);
  });

  describe('POST /api/configs/jwt-customizer/test', () => {
    const test = (script: string, extra: Record<string, unknown> = {}) =>
      running.request('/api/configs/jwt-customizer/test', { method: 'POST', json: { script, ...extra } });

    it('returns the claims of a sample run', async () => {
      const res = await test('const getCustomJwtClaims = ({ token, context }) => ({ n: token.n + 1, who: context.user.id, iss: "x" });', {
        token: { n: 1 }, context: { user: { id: 'u1' } },
      });
      expect(res.status).to.equal(200);
      expect(await res.json()).to.deep.equal({ n: 2, who: 'u1' });
    });

    const escapes = [
      "this.constructor.constructor('return process')().exit()",
      'process.exit(1)',
      "require('fs').readFileSync('/etc/passwd', 'utf8')",
      "(await import('fs')).readFileSync('/etc/passwd', 'utf8')",
      "Function('return process')().env",
      "({}).constructor.constructor('return globalThis.process')().env",
    ];
    for (const escape of escapes) {
      it(`keeps the host out of reach: ${escape}`, async () => {
        const res = await test(`const getCustomJwtClaims = async () => ({ leaked: ${escape} });`);
        expect(res.status).to.equal(422);
        const body = await res.json() as { code: string };
        expect(body.code).to.equal('jwt_customizer.script_error');
        expect(JSON.stringify(body)).not.to.match(/root:|PATH=/);
      });
    }

    it('stops an infinite loop without stalling other requests', async () => {
      let loopAnswered = false;
      const loop = test('const getCustomJwtClaims = () => { for (;;) {} };').then((res) => {
        loopAnswered = true;
        return res;
      });
      await new Promise((resolve) => setTimeout(resolve, 150));
      const health = await fetch(`${running.baseUrl}/healthz`);
      expect(health.status).to.equal(200);
      expect(loopAnswered, 'another request was served while the script was still spinning').to.equal(false);
      const res = await loop;
      expect(res.status).to.equal(422);
      expect(((await res.json()) as { data: { reason: string } }).data.reason).to.equal('timeout');
    });

    it('stops a huge allocation', async () => {
      const res = await test("const getCustomJwtClaims = () => ({ big: 'x'.repeat(1e9).length });");
      expect(res.status).to.equal(422);
      expect(((await res.json()) as { data: { reason: string } }).data.reason).to.equal('memory');
    });
  });
});
