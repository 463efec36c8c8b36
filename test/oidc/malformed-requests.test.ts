import { expect } from 'chai';
import { startService, type RunningService } from '../support/service.ts';
import { createApplication, createResource, createUser, subjectToken } from '../support/fixtures.ts';

const GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
const AT = 'urn:ietf:params:oauth:token-type:access_token';
const TOTAL = 3000;
const CONCURRENCY = 24;

/** A deterministic pseudo-random sequence, so a failure can be replayed. */
function generator(seed: number) {
  let state = seed;
  const next = () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state / 0x7fffffff;
  };
  return { next, pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]! };
}

describe('malformed requests to the OIDC endpoints', () => {
  let running: RunningService;
  let app: { id: string; secret?: string };
  let spa: { id: string };
  let liveSubjectToken: string;

  before(async () => {
    running = await startService();
    await createResource(running, 'https://fuzz.example.com', ['read']);
    app = await createApplication(running, { type: 'Traditional', customClientMetadata: { allowTokenExchange: true } });
    spa = await createApplication(running, { type: 'SPA', customClientMetadata: { allowTokenExchange: true } });
    liveSubjectToken = await subjectToken(running, (await createUser(running)).id);
  });
  after(() => running.close());

  it(`answers ${TOTAL} malformed token, auth, userinfo, introspection and sign-in page requests without a 5xx`, async () => {
    const random = generator(20261122);
    const values = [
      '',
      ' ',
      'x',
      '%',
      '\u0000',
      '😀',
      'a'.repeat(5000),
      '[]',
      '{}',
      'null',
      liveSubjectToken,
      'sub_tk_x',
      'https://fuzz.example.com',
      'https://fuzz.example.com#frag',
      'not a uri',
      GRANT,
      AT,
      'openid read',
      app.id,
      spa.id,
    ];
    const names = [
      'grant_type',
      'subject_token',
      'subject_token_type',
      'actor_token',
      'actor_token_type',
      'resource',
      'scope',
      'client_id',
      'client_secret',
      'requested_token_type',
      'code',
      'redirect_uri',
      'refresh_token',
      'code_verifier',
    ];
    const grantTypes = [
      GRANT,
      'client_credentials',
      'authorization_code',
      'refresh_token',
      'password',
      '',
      'x'.repeat(300),
    ];
    const auths = [
      undefined,
      `Basic ${Buffer.from(`${app.id}:${app.secret}`).toString('base64')}`,
      'Basic !!!',
      'Basic ',
      `Basic ${Buffer.from(`${app.id}:wrong`).toString('base64')}`,
      `Basic ${Buffer.from('no-colon').toString('base64')}`,
      'Bearer x',
    ];
    const contentTypes = [
      'application/x-www-form-urlencoded',
      'application/json',
      'text/plain',
      'multipart/form-data',
      '',
    ];

    const requests: Array<() => Promise<Response>> = [];
    for (let i = 0; i < TOTAL; i += 1) {
      const kind = random.pick(['token', 'token', 'token', 'auth', 'me', 'introspect', 'interaction'] as const);
      const form = new URLSearchParams();
      if (kind === 'token') form.append('grant_type', random.pick(grantTypes));
      const count = Math.floor(random.next() * 6);
      for (let p = 0; p < count; p += 1) form.append(random.pick(names), random.pick(values));
      const headers: Record<string, string> = {};
      const auth = random.pick(auths);
      if (auth) headers.authorization = auth;
      const contentType = random.pick(contentTypes);
      if (contentType) headers['content-type'] = contentType;
      const body = random.next() < 0.1 ? '%%%&&&==;' : random.next() < 0.05 ? 'x'.repeat(300_000) : form.toString();
      const interactionPath = random.pick(['', '/login', '/consent', '/abort', '/%ZZ']);
      const interactionUid = encodeURIComponent(random.pick(values));
      requests.push(() => {
        if (kind === 'auth') return fetch(`${running.baseUrl}/oidc/auth?${form.toString()}`, { redirect: 'manual' });
        if (kind === 'me') return fetch(`${running.baseUrl}/oidc/me`, { headers });
        if (kind === 'interaction') {
          return fetch(`${running.baseUrl}/interaction/${interactionUid}${interactionPath}`, {
            method: interactionPath ? 'POST' : 'GET',
            headers,
            body: interactionPath ? body : undefined,
            redirect: 'manual',
          });
        }
        const path = kind === 'token' ? '/oidc/token' : '/oidc/token/introspection';
        return fetch(`${running.baseUrl}${path}`, { method: 'POST', headers, body });
      });
    }

    const statuses = new Map<number, number>();
    let index = 0;
    const worker = async () => {
      while (index < requests.length) {
        const send = requests[index++]!;
        const res = await send();
        await res.arrayBuffer();
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const serverErrors = [...statuses].filter(([status]) => status >= 500);
    expect(serverErrors, JSON.stringify([...statuses])).to.deep.equal([]);
    expect([...statuses.values()].reduce((a, b) => a + b, 0)).to.equal(TOTAL);
    expect((await fetch(`${running.baseUrl}/healthz`)).status, 'still serving').to.equal(200);
  });
});
