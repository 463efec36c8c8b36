import { expect } from 'chai';
import { startService, type RunningService } from '../support/service.ts';

const PATH = '/api/configs/jwt-customizer/access-token';
const SCRIPT = `const getCustomJwtClaims = async ({ token, context }) => ({
  seenSub: token.sub ?? null, seenPlan: context.user?.plan ?? null,
});`;

describe('jwt customizer tokenSample and contextSample', () => {
  let running: RunningService;

  before(async () => {
    running = await startService();
  });
  after(() => running.close());

  const send = (method: string, path: string, json: unknown) => running.request(path, { method, json });
  const test = async (body: Record<string, unknown>) => {
    const res = await send('POST', '/api/configs/jwt-customizer/test', { script: SCRIPT, ...body });
    expect(res.status).to.equal(200);
    return res.json() as Promise<Record<string, unknown>>;
  };

  it('stores and returns the samples, and the test endpoint runs on them when its request has none', async () => {
    expect(await test({}), 'no samples stored: empty token and context').to.deep.equal({
      seenSub: null,
      seenPlan: null,
    });

    const put = await send('PUT', PATH, {
      script: SCRIPT,
      tokenSample: { sub: 'sample-user' },
      contextSample: { user: { plan: 'gold' } },
    });
    expect(put.status, 'the first PUT creates').to.equal(201);
    const stored = (await (await running.request(PATH)).json()) as Record<string, unknown>;
    expect(stored.tokenSample).to.deep.equal({ sub: 'sample-user' });
    expect(stored.contextSample).to.deep.equal({ user: { plan: 'gold' } });

    expect(await test({})).to.deep.equal({ seenSub: 'sample-user', seenPlan: 'gold' });
    expect(await test({ token: { sub: 'given' } }), 'what the request brings wins').to.deep.equal({
      seenSub: 'given',
      seenPlan: 'gold',
    });
  });

  it('keeps the samples on PATCH unless replaced, and PUT without them removes them', async () => {
    await send('PUT', PATH, { script: SCRIPT, tokenSample: { sub: 'a' }, contextSample: { user: { plan: 'silver' } } });
    const patched = await send('PATCH', PATH, { contextSample: { user: { plan: 'bronze' } } });
    expect(await patched.json()).to.deep.include({
      tokenSample: { sub: 'a' },
      contextSample: { user: { plan: 'bronze' } },
    });
    expect(await test({})).to.deep.equal({ seenSub: 'a', seenPlan: 'bronze' });

    await send('PUT', PATH, { script: SCRIPT });
    const stored = (await (await running.request(PATH)).json()) as Record<string, unknown>;
    expect(stored).not.to.have.property('tokenSample');
    expect(await test({})).to.deep.equal({ seenSub: null, seenPlan: null });
  });

  it('refuses samples that could not be stored safely', async () => {
    const res = await send('PUT', PATH, { script: SCRIPT, contextSample: { $where: 'x' } });
    expect(res.status).to.equal(400);
    expect(((await res.json()) as { code: string }).code).to.equal('guard.invalid_input');
  });
});
