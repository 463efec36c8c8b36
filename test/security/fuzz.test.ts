import { expect } from 'chai';
import { accountClient } from '../support/account.ts';
import { ExperienceClient, REDIRECT } from '../support/experience.ts';
import { createApplication, createUser } from '../support/fixtures.ts';
import { startMailbox, type Mailbox } from '../support/mailbox.ts';
import { startService, type RunningService } from '../support/service.ts';

/**
 * Every route of the service, fed malformed and hostile input by a seeded generator (a failure replays): the API
 * operations as the OpenAPI document declares them, with the caller each expects (admin token, user token, the
 * experience cookie) and sometimes another, and the sign-in pages with the interaction's own form token. No answer
 * may be a 5xx but a documented 502/503 for an upstream that cannot be reached, and none may hang. Only loopback
 * addresses ever appear in the input, so nothing reaches beyond this machine. `FUZZ_SEED` runs another sequence.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 382_026);
const PER_OPERATION = 24;
const PAGE_REQUESTS = 1200;
const CONCURRENCY = 6;
const REQUEST_DEADLINE_MS = 15_000;
const PASSWORD = 'Fuzz-Target-Pass-64';
/** What a 5xx may be: an upstream (identity provider, mail or SMS gateway) that is down or refuses. */
const DOCUMENTED_5XX = new Set([
  'connector.upstream_unreachable',
  'connector.general',
  'service.dependency_unavailable',
]);

/** A deterministic pseudo-random sequence. */
function generator(seed: number) {
  let state = seed;
  const next = () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state / 0x7fffffff;
  };
  return {
    next,
    chance: (p: number) => next() < p,
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!,
  };
}
type Random = ReturnType<typeof generator>;

/** A path segment of any string (a lone surrogate becomes U+FFFD, as a browser would send it). */
const segment = (text: string) => encodeURIComponent(text.toWellFormed());

const deep = (depth: number): unknown => (depth === 0 ? 'bottom' : { a: [deep(depth - 1)] });
const JUNK_STRINGS = [
  '',
  ' ',
  'a',
  'A'.repeat(10_000),
  '\u0000',
  'nul\u0000byte',
  '😀',
  '\uD800',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  '../../etc/passwd',
  '%00',
  '%ZZ',
  '{}',
  '[]',
  'null',
  'true',
  '0',
  '-1',
  '1e309',
  'NaN',
  'http://127.0.0.1:9/x',
  'https://127.0.0.1:9/',
  'http://[::1]:9/',
  'javascript:alert(1)',
  'data:text/html,<b>',
  'whsec_AAAA',
  '__proto__',
  'constructor',
  'fuzz@127.0.0.1',
  'someone@fuzz.example',
  '+15550000000',
  '15550000000',
  '2030-01-01T00:00:00Z',
  'Bearer x',
  '*',
  '$where',
  'admin-console',
  'all',
  'openid profile email',
  'SignIn',
  'Register',
  'ForgotPassword',
  'Totp',
  'BackupCode',
  'WebAuthn',
  'OIDC',
];
const JUNK_VALUES: readonly unknown[] = [
  ...JUNK_STRINGS,
  0,
  -1,
  1.5,
  2 ** 53,
  -(2 ** 63),
  1e308,
  true,
  false,
  null,
  [],
  {},
  [[[]]],
  deep(40),
  { __proto__: { polluted: true } },
  { constructor: { prototype: { polluted: true } } },
  { $gt: '' },
  ['a', 1, null],
];

interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  additionalProperties?: Schema | boolean;
}

/** A value shaped by `schema` most of the time, with junk in its fields (and sometimes instead of it). */
function valueFor(schema: Schema | undefined, random: Random, depth = 0): unknown {
  if (!schema || depth > 6 || random.chance(depth === 0 ? 0.15 : 0.05)) return random.pick(JUNK_VALUES);
  const variants = schema.anyOf ?? schema.oneOf ?? schema.allOf;
  if (variants?.length) return valueFor(random.pick(variants), random, depth + 1);
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return random.chance(0.8) ? random.pick(schema.enum) : random.pick(JUNK_STRINGS);
  const type = Array.isArray(schema.type) ? random.pick(schema.type) : schema.type;
  switch (type) {
    case 'object': {
      const value: Record<string, unknown> = {};
      for (const [name, property] of Object.entries(schema.properties ?? {})) {
        if ((schema.required ?? []).includes(name) || random.chance(0.6))
          value[name] = valueFor(property, random, depth + 1);
      }
      if (random.chance(0.15)) value[random.pick(JUNK_STRINGS).slice(0, 40) || 'extra'] = random.pick(JUNK_VALUES);
      return value;
    }
    case 'array':
      return Array.from({ length: Math.floor(random.next() * 4) }, () => valueFor(schema.items, random, depth + 1));
    case 'integer':
    case 'number':
      return random.pick([0, 1, -1, 10, 100, 2 ** 31, 1e15, 0.5, -1e9]);
    case 'boolean':
      return random.chance(0.5);
    case 'null':
      return null;
    default:
      return random.pick(JUNK_STRINGS);
  }
}

interface Operation {
  method: string;
  path: string;
  security: 'admin' | 'user' | 'none';
  body?: Schema;
  query: Array<{ name: string; schema?: Schema }>;
}

interface Outcome {
  what: string;
  status: number | 'hang';
  body: string;
}

/** Runs the requests `CONCURRENCY` at a time; each answer is read whole. */
async function runAll(
  requests: Array<{ what: string; send: (signal: AbortSignal) => Promise<Response> }>,
): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  let index = 0;
  const worker = async () => {
    while (index < requests.length) {
      const { what, send } = requests[index++]!;
      try {
        const res = await send(AbortSignal.timeout(REQUEST_DEADLINE_MS));
        outcomes.push({ what, status: res.status, body: (await res.text()).slice(0, 300) });
      } catch (error) {
        outcomes.push({
          what,
          status: (error as Error).name === 'TimeoutError' ? 'hang' : 0,
          body: String(error).slice(0, 300),
        });
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return outcomes;
}

/** Answers that break the rule: a hang, a failed connection, or a 5xx without a documented upstream code. */
function undocumented(outcomes: Outcome[]): Outcome[] {
  return outcomes.filter(({ status, body }) => {
    if (status === 'hang' || status === 0) return true;
    if (status < 500) return false;
    if (status !== 502 && status !== 503) return true;
    try {
      return !DOCUMENTED_5XX.has((JSON.parse(body) as { code?: string }).code ?? '');
    } catch {
      // A page (the sign-in pages answer HTML) names no code: a 502/503 page is the upstream's.
      return !/<html/i.test(body);
    }
  });
}

describe('Fuzz: every route answers hostile input with a 4xx, never an undocumented 5xx or a hang', function () {
  this.timeout(600_000);
  let mailbox: Mailbox;
  let running: RunningService;
  let adminToken: string;
  let userToken: string;
  let experience: ExperienceClient;
  let app: { id: string };
  let ids: string[];
  let operations: Operation[];

  before(async () => {
    mailbox = await startMailbox();
    running = await startService({
      env: {
        SMTP_URL: mailbox.url,
        WEBHOOK_RETRY_DELAYS_MS: '50',
        OUTBOUND_TIMEOUT_MS: '1000',
        LOCKOUT_THRESHOLD: '1000',
      },
    });
    adminToken = await running.adminToken();
    const apps = await accountClient(running);
    const owner = await createUser(
      running,
      [],
      { username: 'fuzz_owner', primaryEmail: 'owner@fuzz.example' },
      PASSWORD,
    );
    userToken = await apps.signIn(owner.username!, PASSWORD);
    app = await createApplication(running, { type: 'Traditional', oidcClientMetadata: { redirectUris: [REDIRECT] } });
    experience = new ExperienceClient(running);
    await experience.open(app);
    // Ids that exist, for path parameters; none of the callers' own (their deletion would only narrow the run).
    const spare = await createUser(running, [], { username: 'fuzz_spare' }, PASSWORD);
    const role = (await (
      await running.request('/api/roles', { method: 'POST', json: { name: 'fuzz-role', description: 'fuzz' } })
    ).json()) as { id: string };
    const organization = (await (
      await running.request('/api/organizations', { method: 'POST', json: { name: 'fuzz-org' } })
    ).json()) as { id: string };
    const hook = (await (
      await running.request('/api/hooks', {
        method: 'POST',
        json: { name: 'fuzz', events: ['User.Created'], config: { url: 'http://127.0.0.1:9/hook' } },
      })
    ).json()) as { id: string };
    const spareApp = await createApplication(running, { type: 'MachineToMachine' });
    ids = [spare.id, role.id, organization.id, hook.id, spareApp.id];

    const document = (await (await running.request('/api/swagger.json')).json()) as {
      paths: Record<
        string,
        Record<
          string,
          {
            security?: Array<Record<string, string[]>>;
            parameters?: Array<{ name: string; in: string; schema?: Schema }>;
            requestBody?: { content?: Record<string, { schema?: Schema }> };
          }
        >
      >;
    };
    operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => {
        const scheme = Object.keys(operation.security?.[0] ?? {})[0];
        return {
          method: method.toUpperCase(),
          path,
          security: scheme === 'bearer' ? 'admin' : scheme === 'user' ? 'user' : 'none',
          body: operation.requestBody?.content?.['application/json']?.schema,
          query: (operation.parameters ?? []).filter((parameter) => parameter.in === 'query'),
        } satisfies Operation;
      }),
    );
  });
  after(async () => {
    await running?.close();
    await mailbox?.close();
  });

  it(`sends ${PER_OPERATION} hostile requests to each operation of the OpenAPI document`, async () => {
    expect(operations.length, 'the document lists the API').to.be.greaterThan(150);
    const random = generator(SEED);
    const requests = operations.flatMap((operation) =>
      Array.from({ length: PER_OPERATION }, () => {
        const path = operation.path.replace(
          /\{[^}]+\}/g,
          () => segment(random.chance(0.5) ? random.pick(ids) : random.pick(JUNK_STRINGS).slice(0, 300)) || 'x',
        );
        const query = new URLSearchParams();
        for (const parameter of operation.query) {
          if (random.chance(0.5)) query.set(parameter.name, String(valueFor(parameter.schema, random)).slice(0, 2000));
        }
        if (random.chance(0.2))
          query.set(random.pick(['page', 'page_size', 'search', 'q', 'id']), random.pick(JUNK_STRINGS).slice(0, 500));
        const headers: Record<string, string> = {};
        const caller = random.chance(0.85)
          ? operation.security
          : random.pick(['admin', 'user', 'none', 'junk'] as const);
        if (caller === 'admin') headers.authorization = `Bearer ${adminToken}`;
        if (caller === 'user') headers.authorization = `Bearer ${userToken}`;
        if (caller === 'junk')
          headers.authorization = random.pick(['Bearer ', 'Bearer x.y.z', 'Basic Og==', `Bearer ${'a'.repeat(5000)}`]);
        let body: string | undefined;
        if (operation.method !== 'GET' && (operation.method !== 'DELETE' || random.chance(0.3))) {
          const shape = random.next();
          if (shape < 0.75) {
            body = JSON.stringify(valueFor(operation.body, random));
            headers['content-type'] = 'application/json';
          } else if (shape < 0.85) {
            body = random.pick([
              '{',
              '{"a":',
              'nul',
              '\u0000',
              '{"__proto__":{"polluted":true}}',
              '[1,2',
              '"x"',
              '1e309',
            ]);
            headers['content-type'] = 'application/json';
          } else if (shape < 0.95) {
            body = 'a=1&b=%ZZ';
            headers['content-type'] = random.pick([
              'application/x-www-form-urlencoded',
              'text/plain',
              'multipart/form-data; boundary=x',
              'application/json; charset=utf-16',
            ]);
          } else {
            body = JSON.stringify({ big: 'x'.repeat(2_000_000) });
            headers['content-type'] = 'application/json';
          }
        }
        const url = `${running.baseUrl}${path}${query.size ? `?${query}` : ''}`;
        const what = `${operation.method} ${operation.path} (${caller}) ${path.slice(0, 120)}`;
        // The experience routes see the interaction's cookie, as the sign-in UI's calls do.
        const send = (signal: AbortSignal) =>
          caller === 'none' && operation.path.startsWith('/api/experience')
            ? experience.browser.request(url, { method: operation.method, headers, body, signal })
            : fetch(url, { method: operation.method, headers, body, signal, redirect: 'manual' });
        return { what, send };
      }),
    );
    // Shuffled, so that a change one request makes (a deletion, a setting) meets the other routes in the middle of the
    // run; the switches that turn whole APIs off (the account center, the sign-in experience) come last.
    for (let i = requests.length - 1; i > 0; i -= 1) {
      const j = Math.floor(random.next() * (i + 1));
      [requests[i], requests[j]] = [requests[j]!, requests[i]!];
    }
    const switches = (request: { what: string }) => / \/api\/(account-center|sign-in-exp) /.test(request.what);
    const outcomes = await runAll([...requests.filter((request) => !switches(request)), ...requests.filter(switches)]);
    expect(outcomes).to.have.length(requests.length);
    expect(undocumented(outcomes).slice(0, 10)).to.deep.equal([]);
    expect(
      outcomes.filter((outcome) => typeof outcome.status === 'number' && outcome.status < 300).length,
      'some requests succeed too',
    ).to.be.greaterThan(0);
    expect((await fetch(`${running.baseUrl}/readyz`)).status, 'the service still serves').to.equal(200);
  });

  it(`sends ${PAGE_REQUESTS} hostile form posts and page requests to the sign-in pages`, async () => {
    const random = generator(SEED + 1);
    const gets = [
      '',
      '/sign-up',
      '/forgot-password',
      '/mfa',
      '/mfa/backup-code',
      '/mfa/setup',
      '/mfa/backup-codes',
      '/mfa/passkey',
      '/mfa/passkey/setup',
      '/sign-in/code',
      '/sign-up/code',
      '/forgot-password/code',
      '/social/x',
      '/sso/x',
      '/connector/x',
    ];
    const posts = [
      '/login',
      '/login',
      '/login',
      '/consent',
      '/abort',
      '/sign-up',
      '/sign-up',
      '/sso',
      '/mfa',
      '/mfa/backup-code',
      '/mfa/setup',
      '/mfa/skip',
      '/mfa/backup-codes',
      '/mfa/passkey',
      '/mfa/passkey/setup',
      '/sign-in/send-code',
      '/sign-in/resend',
      '/sign-in/code',
      '/sign-up/send-code',
      '/sign-up/resend',
      '/sign-up/code',
      '/forgot-password/send-code',
      '/forgot-password/resend',
      '/forgot-password/code',
      '/connector/x/link',
      '/connector/x/register',
    ];
    const fields = [
      'identifier',
      'password',
      'username',
      'email',
      'phone',
      'code',
      'verificationId',
      'factor',
      'answer',
      'newPassword',
      'confirmPassword',
      'csrf_token',
      'prompt',
      'connectorId',
    ];
    // Interactions of their own, each with the form token its pages carry: posts get past the CSRF check to the
    // handlers, and one that a post finishes (abort, consent) leaves the others going.
    const interactions = await Promise.all(
      Array.from({ length: 12 }, async () => {
        const client = new ExperienceClient(running);
        const uid = await client.open(app);
        const page = await client.browser.request(`${running.baseUrl}/interaction/${uid}`);
        const token = /name="csrf_token" value="([^"]+)"/.exec(await page.text())?.[1];
        expect(token, 'the sign-in page carries a form token').to.be.a('string');
        return { client, uid, token: token! };
      }),
    );
    const requests = Array.from({ length: PAGE_REQUESTS }, () => {
      const { client, uid, token } = random.pick(interactions);
      const target = random.chance(0.85) ? uid : segment(random.pick(JUNK_STRINGS).slice(0, 300)) || 'x';
      const post = random.chance(0.7);
      const path = post ? random.pick(posts) : random.pick(gets);
      const form = new URLSearchParams();
      if (random.chance(0.9)) form.set('csrf_token', random.chance(0.9) ? token : random.pick(JUNK_STRINGS));
      for (let n = Math.floor(random.next() * 5); n > 0; n -= 1)
        form.append(random.pick(fields), String(random.pick(JUNK_VALUES)).slice(0, 5000));
      const url = path.startsWith('/callback')
        ? `${running.baseUrl}/interaction${path}`
        : `${running.baseUrl}/interaction/${target}${path}`;
      const what = `${post ? 'POST' : 'GET'} /interaction/:uid${path}`;
      const send = (signal: AbortSignal) =>
        client.browser.request(
          post ? url : `${url}?${form}`,
          post
            ? {
                method: 'POST',
                headers: {
                  'content-type': random.chance(0.9) ? 'application/x-www-form-urlencoded' : 'application/json',
                },
                body: form.toString(),
                signal,
              }
            : { signal },
        );
      return { what, send };
    });
    requests.push(
      ...['social', 'sso', 'nope'].map((kind) => ({
        what: `GET /interaction/callback/${kind}`,
        send: (signal: AbortSignal) =>
          experience.browser.request(`${running.baseUrl}/interaction/callback/${kind}?state=x&code=y`, { signal }),
      })),
    );
    const outcomes = await runAll(requests);
    expect(undocumented(outcomes).slice(0, 10)).to.deep.equal([]);
    expect((await fetch(`${running.baseUrl}/readyz`)).status, 'the service still serves').to.equal(200);
  });
});
