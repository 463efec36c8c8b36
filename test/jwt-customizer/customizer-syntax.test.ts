import { expect } from 'chai';
import { startService, type RunningService } from '../support/service.ts';

const PATH = '/api/configs/jwt-customizer/access-token';
const VALID = 'const getCustomJwtClaims = async ({ token }) => ({ seen: token.clientId });';
const BROKEN = 'const getCustomJwtClaims = async ({ token }) => { return { seen: token.clientId ';

describe('stored customizer scripts that do not compile', () => {
  let running: RunningService;
  before(async () => {
    running = await startService({ env: { JWT_CUSTOMIZER_TIMEOUT_MS: '1500' } });
  });
  after(() => running.close());

  it('are refused at PUT with 400 jwt_customizer.syntax_error, and nothing is stored', async () => {
    const res = await running.request(PATH, { method: 'PUT', json: { script: BROKEN } });
    expect(res.status).to.equal(400);
    const body = (await res.json()) as { code: string; message: string; data: { message: string } };
    expect(body.code).to.equal('jwt_customizer.syntax_error');
    expect(body.data.message).to.match(/SyntaxError/);
    expect((await running.request(PATH)).status).to.equal(404);
  });

  it('are refused at PATCH, and the stored script stays', async () => {
    expect(
      (await running.request(PATH, { method: 'PUT', json: { script: VALID } })).status,
      'nothing stored before',
    ).to.equal(201);
    const res = await running.request(PATH, { method: 'PATCH', json: { script: 'function getCustomJwtClaims( {' } });
    expect(res.status).to.equal(400);
    expect(await res.json()).to.include({ code: 'jwt_customizer.syntax_error' });
    expect(await (await running.request(PATH)).json()).to.include({ script: VALID });
    // A patch without a script is not checked again.
    expect((await running.request(PATH, { method: 'PATCH', json: { blockIssuanceOnError: true } })).status).to.equal(
      200,
    );
  });

  it('are only compiled: a script whose top level never ends is accepted at once, since none of it runs', async () => {
    const endless = `while (true) {}\n${VALID}`;
    const started = performance.now();
    const res = await running.request(PATH, { method: 'PUT', json: { script: endless } });
    expect(res.status).to.equal(200);
    expect(performance.now() - started).to.be.below(1500);
  });
});
