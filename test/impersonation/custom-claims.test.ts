import { expect } from 'chai';
import { decodeJwt } from 'jose';
import { ADMIN, clientCredentialsToken, startService, type RunningService } from '../support/service.ts';
import { createApplication, createResource, createUser, subjectToken, tokenRequest } from '../support/fixtures.ts';
import { GRANT, AT } from '../support/token-exchange.ts';

const INDICATOR = 'https://claims.example.com';
const SCRIPT_PATH = '/api/configs/jwt-customizer/access-token';
const TIMEOUT_MS = 500;

describe('custom JWT claims from a stored script', () => {
  let running: RunningService;
  let app: { id: string; secret?: string };
  let user: { id: string };

  before(async () => {
    running = await startService({
      env: { JWT_CUSTOMIZER_TIMEOUT_MS: String(TIMEOUT_MS), JWT_CUSTOMIZER_WORKERS: '2' },
    });
    await createResource(running, INDICATOR, ['read']);
    app = await createApplication(running, {
      type: 'MachineToMachine',
      customClientMetadata: { allowTokenExchange: true },
    });
    user = await createUser(running);
  });
  after(() => running.close());

  const exchange = async (context?: Record<string, unknown>) =>
    tokenRequest(
      running,
      {
        grant_type: GRANT,
        subject_token_type: AT,
        subject_token: await subjectToken(running, user.id, context),
        resource: INDICATOR,
      },
      app,
    );

  const store = (body: Record<string, unknown>) => running.request(SCRIPT_PATH, { method: 'PUT', json: body });

  it('stores, reads, patches and deletes the script', async () => {
    expect((await running.request(SCRIPT_PATH)).status).to.equal(404);
    const put = await store({
      script: 'const getCustomJwtClaims = async () => ({ a: 1 });',
      environmentVariables: { K: 'v' },
    });
    expect(put.status, 'the first PUT creates').to.equal(201);
    const got = (await (await running.request(SCRIPT_PATH)).json()) as Record<string, unknown>;
    expect(got).to.include({ blockIssuanceOnError: false });
    expect(got.environmentVariables).to.deep.equal({ K: 'v' });
    const patched = await running.request(SCRIPT_PATH, { method: 'PATCH', json: { blockIssuanceOnError: true } });
    expect(((await patched.json()) as { blockIssuanceOnError: boolean }).blockIssuanceOnError).to.equal(true);
    expect((await running.request(SCRIPT_PATH, { method: 'DELETE' })).status).to.equal(204);
    expect((await running.request(SCRIPT_PATH, { method: 'DELETE' })).status).to.equal(404);
  });

  it("adds the script's claims to exchanged tokens, with grant type and subject-token context, never reserved ones", async () => {
    await store({
      script: `const getCustomJwtClaims = async ({ token, context, environmentVariables }) => ({
        grantType: context.grant.type, reason: context.grant.subjectTokenContext.reason,
        env: environmentVariables.STAGE, uid: context.user.id, sub: 'forged', act: { sub: 'x' }, exp: 1,
        orgs: context.user.organizations.map((org) => org.name),
      });`,
      environmentVariables: { STAGE: 'prod' },
    });
    const org = (await (
      await running.request('/api/organizations', { method: 'POST', json: { name: 'Acme' } })
    ).json()) as { id: string };
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
    await store({
      script: `const getCustomJwtClaims = ({ context, api }) => {
      if (context.grant.subjectTokenContext.block) api.denyAccess('not this user');
      return {};
    };`,
    });
    const token = await subjectToken(running, user.id, { block: true });
    const denied = await tokenRequest(
      running,
      { grant_type: GRANT, subject_token_type: AT, subject_token: token, resource: INDICATOR },
      app,
    );
    expect(denied.status).to.equal(400);
    expect(denied.body).to.include({ error: 'access_denied', error_description: 'not this user' });
    await store({ script: 'const getCustomJwtClaims = () => ({});' });
    const again = await tokenRequest(
      running,
      { grant_type: GRANT, subject_token_type: AT, subject_token: token, resource: INDICATOR },
      app,
    );
    expect(again.status).to.equal(200);
  });

  it('fails open on a script error by default, and closed with blockIssuanceOnError', async () => {
    await store({ script: 'const getCustomJwtClaims = () => { throw new Error("boom"); };' });
    const open = await exchange();
    expect(open.status).to.equal(200);
    await store({ script: 'const getCustomJwtClaims = () => { while (true) {} };', blockIssuanceOnError: true });
    const token = await subjectToken(running, user.id);
    const closed = await tokenRequest(
      running,
      { grant_type: GRANT, subject_token_type: AT, subject_token: token, resource: INDICATOR },
      app,
    );
    expect(closed.status).to.equal(400);
    expect(closed.body.error).to.equal('invalid_request');
    await store({ script: 'const getCustomJwtClaims = () => ({ ok: true });' });
    const after = await tokenRequest(
      running,
      { grant_type: GRANT, subject_token_type: AT, subject_token: token, resource: INDICATOR },
      app,
    );
    expect(after.status, 'the failed exchange did not spend the token').to.equal(200);
    expect(decodeJwt(after.body.access_token as string).ok).to.equal(true);
  });

  const clientCredentials = () => tokenRequest(running, { grant_type: 'client_credentials', resource: INDICATOR }, app);

  it('drops claim names no token can carry and still issues the token', async () => {
    await store({ script: 'const getCustomJwtClaims = () => ({ constructor: 1, prototype: 2, ok: 1 });' });
    const { status, body } = await clientCredentials();
    expect(status, JSON.stringify(body)).to.equal(200);
    const claims = decodeJwt(body.access_token as string);
    expect(claims.ok).to.equal(1);
    expect(Object.hasOwn(claims, 'constructor')).to.equal(false);
    expect(Object.hasOwn(claims, 'prototype')).to.equal(false);
  });

  it('never runs the stored script for management API tokens, so a failing script cannot lock operators out', async () => {
    await store({
      script: 'const getCustomJwtClaims = () => { throw new Error("boom"); };',
      blockIssuanceOnError: true,
    });
    expect((await clientCredentials()).body.error, 'other resources still fail closed').to.equal('invalid_request');
    const token = await clientCredentialsToken(
      running.baseUrl,
      ADMIN.id,
      ADMIN.secret,
      `${running.baseUrl}/api`,
      'all',
    );
    expect((await running.request('/api/applications', { token })).status).to.equal(200);
    expect((await running.request(SCRIPT_PATH, { method: 'DELETE', token })).status).to.equal(204);
  });

  it('bounds typed-array allocations by the memory limit and serves the next token from a fresh worker', async () => {
    const hog = `const getCustomJwtClaims = () => {
      const kept = [];
      for (let i = 0; i < 1000; i++) kept.push(new Uint8Array(1 << 20));
      return { hog: kept.length };
    };`;
    const tested = await running.request('/api/configs/jwt-customizer/test', { method: 'POST', json: { script: hog } });
    expect(tested.status).to.equal(422);
    expect(((await tested.json()) as { data: { reason: string } }).data.reason).to.equal('memory');

    await store({ script: hog });
    const open = await clientCredentials();
    expect(open.status, 'fail-open').to.equal(200);
    expect(decodeJwt(open.body.access_token as string).hog).to.equal(undefined);
    await store({ script: hog, blockIssuanceOnError: true });
    const closed = await clientCredentials();
    expect(closed.status, 'fail-closed').to.equal(400);
    expect(closed.body.error).to.equal('invalid_request');

    await store({ script: 'const getCustomJwtClaims = () => ({ fresh: true });' });
    const next = await clientCredentials();
    expect(decodeJwt(next.body.access_token as string).fresh).to.equal(true);
  });

  it('answers concurrent token requests within their own deadline while a script loops forever', async () => {
    await store({ script: 'const getCustomJwtClaims = () => { for (;;) {} };' });
    const started = Date.now();
    const answers = await Promise.all(
      [0, 1, 2, 3, 4, 5].map(async () => {
        const { status, body } = await clientCredentials();
        return { status, loop: decodeJwt(body.access_token as string).loop, elapsed: Date.now() - started };
      }),
    );
    for (const answer of answers) expect(answer).to.include({ status: 200, loop: undefined });
    const slowest = Math.max(...answers.map((answer) => answer.elapsed));
    expect(slowest, `answered after ${answers.map((answer) => answer.elapsed).join(', ')} ms`).to.be.below(
      4 * TIMEOUT_MS,
    );
  });

  it('keeps issuing tokens with their claims while a test run loops forever', async () => {
    await store({ script: 'const getCustomJwtClaims = () => ({ issued: true });' });
    let loopAnswered = false;
    const loop = running
      .request('/api/configs/jwt-customizer/test', {
        method: 'POST',
        json: { script: 'const getCustomJwtClaims = () => { for (;;) {} };' },
      })
      .then((res) => {
        loopAnswered = true;
        return res;
      });
    for (let i = 0; i < 3; i++) {
      const { status, body } = await clientCredentials();
      expect(status).to.equal(200);
      expect(decodeJwt(body.access_token as string).issued).to.equal(true);
    }
    expect(loopAnswered, 'the tokens waited for the test run').to.equal(false);
    expect((await loop).status).to.equal(422);
  });

  describe('POST /api/configs/jwt-customizer/test', () => {
    const test = (script: string, extra: Record<string, unknown> = {}) =>
      running.request('/api/configs/jwt-customizer/test', { method: 'POST', json: { script, ...extra } });

    it('returns the claims of a sample run', async () => {
      const res = await test(
        'const getCustomJwtClaims = ({ token, context }) => ({ n: token.n + 1, who: context.user.id, iss: "x" });',
        {
          token: { n: 1 },
          context: { user: { id: 'u1' } },
        },
      );
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
    for (const escaped of escapes) {
      it(`keeps the host out of reach: ${escaped}`, async () => {
        const res = await test(`const getCustomJwtClaims = async () => ({ leaked: ${escaped} });`);
        expect(res.status).to.equal(422);
        const body = (await res.json()) as { code: string };
        expect(body.code).to.equal('jwt_customizer.script_error');
        expect(JSON.stringify(body)).not.to.match(/root:|PATH=/);
      });
    }

    it('stops an infinite loop without stalling other requests', async () => {
      let answeredAt: number | undefined;
      const loop = test('const getCustomJwtClaims = () => { for (;;) {} };').then((res) => {
        answeredAt = performance.now();
        return res;
      });
      const healthAnsweredAt: number[] = [];
      for (let polls = 0; answeredAt === undefined && polls < 5000; polls += 1) {
        const health = await fetch(`${running.baseUrl}/healthz`);
        expect(health.status).to.equal(200);
        healthAnsweredAt.push(performance.now());
      }
      const res = await loop;
      expect(res.status).to.equal(422);
      expect(((await res.json()) as { data: { reason: string } }).data.reason).to.equal('timeout');
      // A timeout answers no sooner than TIMEOUT_MS after the script started, so the script was spinning
      // throughout the last TIMEOUT_MS before the answer: health checks answered inside that span were served
      // while it spun (a blocked event loop would have answered them all at the end, at once).
      const spinning = healthAnsweredAt.filter((at) => at > answeredAt! - TIMEOUT_MS + 100 && at < answeredAt! - 100);
      expect(spinning.length, 'health checks answered while the script spun').to.be.at.least(3);
    });

    it('stops a huge allocation', async () => {
      const res = await test("const getCustomJwtClaims = () => ({ big: 'x'.repeat(1e9).length });");
      expect(res.status).to.equal(422);
      expect(((await res.json()) as { data: { reason: string } }).data.reason).to.equal('memory');
    });
  });
});
