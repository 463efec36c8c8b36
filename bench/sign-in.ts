import { createHash, randomBytes } from 'node:crypto';
import type { createHttpClient, HttpResult } from './load.ts';
import { basicAuth } from './service-process.ts';

type Http = ReturnType<typeof createHttpClient>;

/** Where the bench's sign-in application sends the browser back; nothing listens there, the bench stops at it. */
export const SIGN_IN_REDIRECT = 'http://127.0.0.1:9/callback';

const base64url = (bytes: Buffer) => bytes.toString('base64url');

/** The cookies one browser holds for the service (one origin, so names are enough). */
class CookieJar {
  readonly #cookies = new Map<string, string>();

  keep(res: HttpResult): void {
    for (const line of res.headers['set-cookie'] ?? []) {
      const pair = line.split(';', 1)[0]!;
      const at = pair.indexOf('=');
      const [name, value] = [pair.slice(0, at).trim(), pair.slice(at + 1).trim()];
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(line)) this.#cookies.delete(name);
      else this.#cookies.set(name, value);
    }
  }

  header(): Record<string, string> {
    return this.#cookies.size
      ? { cookie: [...this.#cookies].map(([name, value]) => `${name}=${value}`).join('; ') }
      : {};
  }
}

/**
 * One password sign-in through the Experience API, as a sign-in UI of one's own makes it: the authorization request
 * followed to the sign-in page (which binds the interaction to this browser's cookies), `PUT /api/experience`, the
 * password verification, identification, submit, `redirectTo` followed back to the client, and the code redeemed at
 * the token endpoint. Throws unless the client ends up with tokens. `passwordMs` receives the time of the
 * password verification request alone, where the password hash is computed.
 */
export async function passwordSignIn(
  http: Http,
  app: { id: string; secret: string },
  user: { username: string; password: string },
  passwordMs: number[],
): Promise<void> {
  const jar = new CookieJar();
  const send = async (method: string, path: string, body?: unknown) => {
    const headers = { ...jar.header(), ...(body === undefined ? {} : { 'content-type': 'application/json' }) };
    const res = await http.send(method, path, headers, body === undefined ? undefined : JSON.stringify(body));
    jar.keep(res);
    return res;
  };
  /** Follows redirects on the service until one leads to the client; answers that URL. */
  const follow = async (first: string): Promise<string> => {
    let location = first;
    for (let hops = 0; hops < 10; hops += 1) {
      if (location.startsWith(SIGN_IN_REDIRECT)) return location;
      const url = new URL(location, 'http://service.invalid');
      const res = await send('GET', `${url.pathname}${url.search}`);
      if (res.status < 300 || res.status >= 400) {
        if (hops > 0 && res.status === 200) return '';
        throw new Error(`sign-in: ${url.pathname} answered ${res.status}`);
      }
      location = String(res.headers.location);
    }
    throw new Error('sign-in: too many redirects');
  };
  const expect = (res: HttpResult, step: string) => {
    if (res.status < 200 || res.status >= 300)
      throw new Error(`sign-in: ${step} answered ${res.status}: ${res.body.slice(0, 200)}`);
    return res.body ? (JSON.parse(res.body) as Record<string, unknown>) : {};
  };

  const verifier = base64url(randomBytes(32));
  const challenge = base64url(createHash('sha256').update(verifier).digest());
  const authorize = `/oidc/auth?${new URLSearchParams({
    client_id: app.id,
    redirect_uri: SIGN_IN_REDIRECT,
    response_type: 'code',
    scope: 'openid profile',
    state: 'bench',
    code_challenge: challenge,
    code_challenge_method: 'S256',
  })}`;
  // The sign-in page answers 200 at the end of the redirects.
  await follow(authorize);
  expect(await send('PUT', '/api/experience', { interactionEvent: 'SignIn' }), 'PUT /api/experience');
  const started = performance.now();
  const verification = expect(
    await send('POST', '/api/experience/verification/password', {
      identifier: { type: 'username', value: user.username },
      password: user.password,
    }),
    'password verification',
  );
  passwordMs.push(performance.now() - started);
  expect(
    await send('POST', '/api/experience/identification', { verificationId: verification.verificationId }),
    'identification',
  );
  const { redirectTo } = expect(await send('POST', '/api/experience/submit'), 'submit') as { redirectTo: string };
  const callback = new URL(await follow(redirectTo));
  const code = callback.searchParams.get('code');
  if (!code) throw new Error(`sign-in: the client got no code (${callback.search})`);
  const token = await http.send(
    'POST',
    '/oidc/token',
    {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basicAuth(app.id, app.secret),
    },
    new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: SIGN_IN_REDIRECT,
      code_verifier: verifier,
    }).toString(),
  );
  expect(token, 'code redemption');
}
