/**
 * Federation through a real upstream: a second instance of this service is the identity provider. Users and the
 * downstream's client are made through its management API, and its sign-in pages are driven over HTTP the way
 * a browser does; the downstream signs in through a social or enterprise connector pointing at it.
 */
import { expect } from 'chai';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Browser } from './browser.ts';
import { createApplication } from './fixtures.ts';
import { startService, type RunningService } from './service.ts';
import {
  json,
  startExperienceHarness,
  uniqueName,
  type ExperienceClient,
  type ExperienceHarness,
} from './experience.ts';

/** Where an Experience API client of one's own has the provider send the browser back (nothing listens there). */
export const API_CALLBACK = 'http://127.0.0.1:9/connector-callback';

export interface UpstreamUser {
  id: string;
  username: string;
  password: string;
  email: string;
}

export interface Federation {
  upstream: RunningService;
  h: ExperienceHarness;
  /** The downstream's client at the upstream. */
  client: { id: string; secret: string };
  /** A user of the upstream, with a verified email. */
  upstreamUser(email?: string, name?: string): Promise<UpstreamUser>;
  /**
   * Signs in at the upstream from `authorizationUri` (in a fresh browser unless one is given) and answers the callback URL
   * the upstream sent the browser to.
   */
  signInUpstream(authorizationUri: string, user: UpstreamUser, callbackBase?: string, browser?: Browser): Promise<URL>;
  /**
   * A downstream sign-in (a fresh Experience API client, event SignIn) through the connector, with `user` signed in at
   * the upstream and the callback verified: what is left is the identification.
   */
  verifiedThrough(
    type: 'social' | 'sso',
    connectorId: string,
    user: UpstreamUser,
  ): Promise<{ client: ExperienceClient; verificationId: string }>;
  /** A social connector at the downstream pointing at the upstream. */
  socialConnector(kind: 'oidc' | 'oauth2', target: string, extra?: Record<string, unknown>): Promise<{ id: string }>;
  close(): Promise<void>;
}

/** `env` configures the downstream (the service under test); the upstream runs with the defaults. */
export async function startFederation(env: Record<string, string | undefined> = {}): Promise<Federation> {
  const upstream = await startService();
  const h = await startExperienceHarness(env);
  // These suites are about the connectors: registering through one is not stopped for a username the default
  // sign-up settings would ask for (socialSignIn.skipRequiredIdentifiers is tested on its own).
  await skipRequiredIdentifiers(h.running);
  const base = h.running.baseUrl;
  const app = await createApplication(upstream, {
    type: 'Traditional',
    name: 'Downstream',
    oidcClientMetadata: {
      redirectUris: [API_CALLBACK, `${base}/interaction/callback/social`, `${base}/interaction/callback/sso`],
      postLogoutRedirectUris: [],
    },
  });
  const client = { id: app.id, secret: app.secret! };
  const issuer = `${upstream.baseUrl}/oidc`;

  const signInUpstream: Federation['signInUpstream'] = async (
    authorizationUri,
    user,
    callbackBase = API_CALLBACK,
    browser = new Browser(),
  ) => {
    const page = await browser.follow(authorizationUri, callbackBase);
    expect(page.res.status, `the upstream's sign-in page (${page.url})`).to.equal(200);
    const action = new URL(page.url);
    action.pathname += '/login';
    const done = await browser.submit(
      action.href,
      { identifier: user.username, password: user.password },
      callbackBase,
    );
    expect(done.url.startsWith(callbackBase), `ended at ${done.url} (${done.res.status})`).to.equal(true);
    return new URL(done.url);
  };

  return {
    upstream,
    h,
    client,
    async upstreamUser(email = `${uniqueName('up')}@upstream.example.com`, name = 'Upstream Person') {
      const username = uniqueName('up');
      const password = 'Correct-Horse-7';
      const res = await upstream.request('/api/users', {
        method: 'POST',
        json: { username, password, primaryEmail: email, name },
      });
      const body = await json(res);
      expect(res.status, JSON.stringify(body)).to.equal(201);
      return { id: body.id, username, password, email: body.primaryEmail };
    },
    signInUpstream,
    async verifiedThrough(type, connectorId, user) {
      const client = h.client();
      await client.open(h.app);
      await client.ok('PUT', '', { interactionEvent: 'SignIn' });
      const { authorizationUri, verificationId } = await client.ok(
        'POST',
        `/verification/${type}/${connectorId}/authorization-uri`,
        {
          state: `state-${uniqueName(type)}`,
          redirectUri: API_CALLBACK,
        },
      );
      await client.ok('POST', `/verification/${type}/${connectorId}/verify`, {
        verificationId,
        connectorData: paramsOf(await signInUpstream(authorizationUri, user)),
      });
      return { client, verificationId };
    },
    async socialConnector(kind, target, extra = {}) {
      const config =
        kind === 'oidc'
          ? { clientId: client.id, clientSecret: client.secret, issuer }
          : {
              clientId: client.id,
              clientSecret: client.secret,
              scope: 'openid profile email',
              authorizationEndpoint: `${issuer}/auth`,
              tokenEndpoint: `${issuer}/token`,
              userInfoEndpoint: `${issuer}/me`,
              profileMap: { id: 'sub', emailVerified: 'email_verified' },
            };
      const res = await h.running.request('/api/connectors', {
        method: 'POST',
        json: {
          connectorId: kind,
          metadata: { target, name: { en: `Upstream ${kind}` } },
          config: { ...config, ...extra },
        },
      });
      const body = await json(res);
      expect(res.status, JSON.stringify(body)).to.equal(201);
      return body;
    },
    async close() {
      await h.close();
      await upstream.close();
    },
  };
}

/** The callback's query parameters, as a client hands them to `/verify`. */
export const paramsOf = (url: URL) => Object.fromEntries(url.searchParams);

/**
 * Logto's OIDC connector config for the federation's upstream, as Logto's console saves and exports it: Logto's
 * `responseType`, `grantType`, `scope` spelling and `idTokenVerificationConfig` (`verification` adds to it).
 */
export function logtoOidcConfig(
  f: Pick<Federation, 'upstream' | 'client'>,
  verification: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
) {
  const issuer = `${f.upstream.baseUrl}/oidc`;
  return {
    clientId: f.client.id,
    clientSecret: f.client.secret,
    responseType: 'code',
    grantType: 'authorization_code',
    authorizationEndpoint: `${issuer}/auth`,
    tokenEndpoint: `${issuer}/token`,
    scope: 'profile+email',
    idTokenVerificationConfig: { jwksUri: `${issuer}/jwks`, issuer, ...verification },
    ...extra,
  };
}

interface Recorded {
  method: string;
  path: string;
  body: string;
  headers: IncomingMessage['headers'];
}

/** A loopback HTTP server answering with `handle`; every request it got is recorded. */
export async function listen(handle: (req: IncomingMessage, res: ServerResponse, body: string) => void) {
  const requests: Recorded[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({ method: req.method ?? '', path: req.url ?? '/', body, headers: req.headers });
      handle(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Turns on `socialSignIn.skipRequiredIdentifiers`: a social registration is not asked for what sign-up requires. */
export async function skipRequiredIdentifiers(running: {
  request(path: string, init: { method: string; json: unknown }): Promise<Response>;
}): Promise<void> {
  const res = await running.request('/api/sign-in-exp', {
    method: 'PATCH',
    json: { socialSignIn: { skipRequiredIdentifiers: true } },
  });
  expect(res.status).to.equal(200);
}
