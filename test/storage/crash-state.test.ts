/**
 * What a signed-in user, a client and an operator hold when the server is SIGKILLed and started again on the same
 * data directory: tokens still verify, a refresh token still refreshes, a browser session is still signed in, a
 * subject token is still good exactly once, a lockout is still in force, and a delivery waiting for its retry keeps
 * its schedule.
 */
import { expect } from 'chai';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as client from 'openid-client';
import { ExperienceClient } from '../support/experience.ts';
import { Browser, formAction } from '../support/browser.ts';
import { ADMIN, clientCredentialsToken } from '../support/service.ts';
import { tempDataDir } from '../support/sqlite.ts';
import { eventually } from '../support/wait.ts';
import { Receiver } from '../support/webhooks/receiver.ts';
import { ServerProcess } from '../support/storage/server.ts';

const REDIRECT = 'http://127.0.0.1:9/callback';
const GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN = 'urn:ietf:params:oauth:token-type:access_token';
const PASSWORD = 'Crash-Pass-2024';
const RETRY_MS = 4000;

describe('SQLite store: what users and clients hold survives a SIGKILL', function () {
  this.timeout(120_000);
  let dataDir: string;
  let server: ServerProcess;
  let receiver: Receiver;

  before(async () => {
    dataDir = tempDataDir();
    receiver = await Receiver.start();
    server = await ServerProcess.on(dataDir, {
      LOCKOUT_THRESHOLD: '3',
      LOCKOUT_SECONDS: '600',
      WEBHOOK_RETRY_DELAYS_MS: String(RETRY_MS),
    });
    await server.start();
  });
  after(async () => {
    await server?.close();
    await receiver?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function created<T>(response: Response | Promise<Response>): Promise<T> {
    const answer = await response;
    expect(answer.status, await answer.clone().text()).to.equal(201);
    return answer.json() as Promise<T>;
  }

  const form = (params: Record<string, string>, app: { id: string; secret?: string }) =>
    fetch(`${server.baseUrl}/oidc/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${app.id}:${app.secret}`).toString('base64')}`,
      },
      body: new URLSearchParams(params),
    });

  it('keeps tokens, refresh tokens, sessions, subject tokens, lockouts and retry schedules', async () => {
    // Before: a user signed in through the pages, with a refresh token; a machine token; a subject token; a lockout.
    const alice = await created<{ id: string; username: string }>(
      server.request('/api/users', {
        method: 'POST',
        json: { username: 'crash_alice', password: PASSWORD },
      }),
    );
    await created(
      server.request('/api/users', { method: 'POST', json: { username: 'crash_bob', password: PASSWORD } }),
    );
    const app = await created<{ id: string; secret: string }>(
      server.request('/api/applications', {
        method: 'POST',
        json: {
          name: 'crash app',
          type: 'Traditional',
          oidcClientMetadata: { redirectUris: [REDIRECT] },
          customClientMetadata: { allowTokenExchange: true },
        },
      }),
    );
    const config = await client.discovery(new URL(`${server.baseUrl}/oidc`), app.id, app.secret, undefined, {
      execute: [client.allowInsecureRequests],
    });
    const browser = new Browser();
    const authorize = async (extra: Record<string, string>) => {
      const verifier = client.randomPKCECodeVerifier();
      const url = client.buildAuthorizationUrl(config, {
        redirect_uri: REDIRECT,
        state: 'st',
        code_challenge: await client.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        scope: 'openid offline_access',
        ...extra,
      });
      return { url, verifier };
    };
    const first = await authorize({ prompt: 'consent' });
    const page = await browser.follow(first.url.href, REDIRECT);
    const signedIn = await browser.submit(
      formAction(await page.res.text()),
      { identifier: 'crash_alice', password: PASSWORD },
      REDIRECT,
    );
    // A first-party application is consented without a page; a consent form, when shown, is accepted.
    const callback = signedIn.url.startsWith(REDIRECT)
      ? signedIn
      : await browser.submit(formAction(await signedIn.res.text()), {}, REDIRECT);
    expect(callback.url.startsWith(REDIRECT), callback.url).to.equal(true);
    const tokens = await client.authorizationCodeGrant(config, new URL(callback.url), {
      pkceCodeVerifier: first.verifier,
      expectedState: 'st',
    });
    expect(tokens.refresh_token).to.be.a('string');
    const machineToken = await clientCredentialsToken(
      server.baseUrl,
      ADMIN.id,
      ADMIN.secret,
      `${server.baseUrl}/api`,
      'all',
    );
    const { subjectToken } = await created<{ subjectToken: string }>(
      server.request('/api/subject-tokens', { method: 'POST', json: { userId: alice.id } }),
    );

    const experience = new ExperienceClient(server.asRunning());
    await experience.open(app);
    await experience.ok('PUT', '', { interactionEvent: 'SignIn' });
    const attempt = (password: string) =>
      experience.api('POST', '/verification/password', {
        identifier: { type: 'username', value: 'crash_bob' },
        password,
      });
    for (let i = 0; i < 3; i += 1) await attempt('wrong password');
    expect((await attempt(PASSWORD)).body.code, 'locked before the kill').to.equal(
      'session.verification_blocked_too_many_attempts',
    );

    // A delivery whose first attempt failed, waiting RETRY_MS for its second.
    receiver.script('/retry', (nth) => ({ status: nth === 1 ? 503 : 200, body: 'x' }));
    await created(
      server.request('/api/hooks', {
        method: 'POST',
        json: { name: 'retry', events: ['Role.Created'], config: { url: receiver.url('/retry') } },
      }),
    );
    await created(server.request('/api/roles', { method: 'POST', json: { name: 'retried', description: 'r' } }));
    await eventually(() => receiver.requests('/retry').length === 1, { what: 'the first attempt' });
    const firstAttemptAt = receiver.requests('/retry')[0]!.receivedAt;
    // Killed once the retry is scheduled in the file (before that, the attempt is one in flight: made again at once).
    const file = new DatabaseSync(join(dataDir, 'identity.sqlite'), { readOnly: true });
    await eventually(
      () => Number(file.prepare('SELECT max(run_at) AS at FROM delivery_jobs').get()?.at ?? 0) > firstAttemptAt,
      {
        what: 'the retry scheduled in the file',
      },
    );
    file.close();

    await server.kill();
    await server.start();

    // The machine token verifies against the JWKS the restarted server serves: the signing keys were kept.
    const jwks = createRemoteJWKSet(new URL(`${server.baseUrl}/oidc/jwks`));
    const { payload } = await jwtVerify(machineToken, jwks, { issuer: `${server.baseUrl}/oidc` });
    expect(payload.client_id).to.equal(ADMIN.id);
    expect(
      (await server.request(`/api/users/${alice.id}`, { token: machineToken })).status,
      'and is accepted',
    ).to.equal(200);

    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.access_token).to.be.a('string');
    expect(refreshed.claims()?.sub ?? (await jwtVerify(refreshed.id_token!, jwks)).payload.sub).to.equal(alice.id);

    // The browser is still signed in: no interaction needed.
    const again = await authorize({ prompt: 'none', scope: 'openid' });
    const silent = await browser.follow(again.url.href, REDIRECT);
    const silentUrl = new URL(silent.url);
    expect(silentUrl.searchParams.get('error'), silent.url).to.equal(null);
    expect(silentUrl.searchParams.get('code')).to.be.a('string');

    const exchange = () =>
      form({ grant_type: GRANT, subject_token: subjectToken, subject_token_type: ACCESS_TOKEN }, app);
    const exchanged = await exchange();
    expect(exchanged.status, await exchanged.clone().text()).to.equal(200);
    const replayed = await exchange();
    expect(replayed.status).to.equal(400);
    // The service's rule for a spent subject token (as for an unknown one): invalid_request.
    expect(((await replayed.json()) as { error_description: string }).error_description).to.match(/already used/);

    const fresh = new ExperienceClient(server.asRunning());
    await fresh.open(app);
    await fresh.ok('PUT', '', { interactionEvent: 'SignIn' });
    const locked = await fresh.api('POST', '/verification/password', {
      identifier: { type: 'username', value: 'crash_bob' },
      password: PASSWORD,
    });
    expect(locked.status).to.equal(429);
    expect(locked.body.code).to.equal('session.verification_blocked_too_many_attempts');

    // The retry arrives on its schedule, counted from the failed attempt before the kill, with the same webhook-id.
    await eventually(() => receiver.requests('/retry').length === 2, {
      timeoutMs: 30_000,
      what: 'the retry after the restart',
    });
    const [failed, retried] = receiver.requests('/retry');
    expect(retried!.headers['webhook-id']).to.equal(failed!.headers['webhook-id']);
    // The schedule's delay, less its jitter (at most a fifth), counted from before the kill.
    expect(retried!.receivedAt - firstAttemptAt).to.be.at.least(RETRY_MS * 0.8 - 50);
    // The attempt is recorded once the receiver answered it: a moment after the receiver saw it.
    const hookId = ((await (await server.request('/api/hooks')).json()) as Array<{ id: string }>)[0]!.id;
    const deliveries = await eventually(
      async () => {
        const listed = (await (await server.request(`/api/hooks/${hookId}/deliveries`)).json()) as Array<{
          attempts: number;
          status: string;
        }>;
        return listed[0]?.status !== 'pending' && listed;
      },
      { what: 'the retry recorded' },
    );
    expect(deliveries[0]).to.include({ status: 'succeeded', attempts: 2 });
  });
});
