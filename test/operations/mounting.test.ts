import { expect } from 'chai';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import mount from 'koa-mount';
import { pino } from 'pino';
import * as client from 'openid-client';
import { createIdentityService } from '../../app/index.ts';
import { hashPassword } from '../../lib/users/passwords.ts';
import { Browser, formAction } from '../support/browser.ts';

describe('mounting into a host Koa app', () => {
  it("serves under /auth with the issuer, every endpoint and the sign-in pages reflecting the prefix, beside the host's routes", async () => {
    const host = new Koa();
    host.keys = ['the-host-has-its-own-keys'];
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const service = await createIdentityService({
      env: {
        STORAGE: 'memory',
        BASE_URL: `${origin}/auth`,
        ADMIN_CLIENT_ID: 'mounted-admin',
        ADMIN_CLIENT_SECRET: 'mounted-admin-secret-123',
      },
      logger: pino({ level: 'silent' }),
      print: () => {},
    });
    host.use(mount('/auth', service.app));
    host.use((ctx) => {
      ctx.body = { host: true, path: ctx.path };
    });
    server.on('request', host.callback());
    try {
      const discovery = (await (await fetch(`${origin}/auth/oidc/.well-known/openid-configuration`)).json()) as Record<
        string,
        string
      >;
      expect(discovery.issuer).to.equal(`${origin}/auth/oidc`);
      expect(discovery.token_endpoint).to.equal(`${origin}/auth/oidc/token`);
      expect(discovery.jwks_uri).to.equal(`${origin}/auth/oidc/jwks`);
      expect(discovery.authorization_endpoint).to.equal(`${origin}/auth/oidc/auth`);

      const jwks = (await (await fetch(discovery.jwks_uri!)).json()) as { keys: Array<Record<string, unknown>> };
      expect(jwks.keys.length).to.be.greaterThan(0);
      for (const key of jwks.keys) expect(key).not.to.have.property('d');

      const config = await client.discovery(
        new URL(`${origin}/auth/oidc`),
        'mounted-admin',
        'mounted-admin-secret-123',
        undefined,
        {
          execute: [client.allowInsecureRequests],
        },
      );
      const tokens = await client.clientCredentialsGrant(config, { resource: `${origin}/auth/api`, scope: 'all' });
      const apps = await fetch(`${origin}/auth/api/applications`, {
        headers: { authorization: `Bearer ${tokens.access_token}` },
      });
      expect(apps.status).to.equal(200);

      const swagger = (await (await fetch(`${origin}/auth/api/swagger.json`)).json()) as {
        servers: Array<{ url: string }>;
      };
      expect(swagger.servers[0]!.url).to.equal(`${origin}/auth`);

      const hostRoute = await (await fetch(`${origin}/elsewhere`)).json();
      expect(hostRoute).to.deep.equal({ host: true, path: '/elsewhere' });

      // A browser sign-in under the prefix: the provider's signed cookies work although the host has other keys.
      const redirect = 'http://127.0.0.1:9/cb';
      const spa = (await (
        await fetch(`${origin}/auth/api/applications`, {
          method: 'POST',
          headers: { authorization: `Bearer ${tokens.access_token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'spa', type: 'SPA', oidcClientMetadata: { redirectUris: [redirect] } }),
        })
      ).json()) as { id: string };
      await service.records.users.insert(
        {
          id: 'mounted-user',
          username: 'mounted',
          primaryEmail: null,
          primaryPhone: null,
          name: null,
          avatar: null,
          customData: {},
          identities: {},
          profile: {},
          applicationId: null,
          isSuspended: false,
          hasPassword: true,
          lastSignInAt: null,
          createdAt: Date.now(),
          updatedAt: Date.now(),
        },
        { passwordDigest: await hashPassword('mounted password') },
      );
      const spaConfig = await client.discovery(new URL(`${origin}/auth/oidc`), spa.id, undefined, client.None(), {
        execute: [client.allowInsecureRequests],
      });
      const verifier = client.randomPKCECodeVerifier();
      const url = client.buildAuthorizationUrl(spaConfig, {
        redirect_uri: redirect,
        scope: 'openid',
        code_challenge: await client.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        state: 's',
      });
      const browser = new Browser();
      const login = await browser.follow(url.href, redirect);
      expect(login.url.startsWith(`${origin}/auth/interaction/`), login.url).to.equal(true);
      const done = await browser.submit(
        formAction(await login.res.text()),
        { identifier: 'mounted', password: 'mounted password' },
        redirect,
      );
      expect(done.url.startsWith(redirect), `ended at ${done.url}`).to.equal(true);
      const signedIn = await client.authorizationCodeGrant(spaConfig, new URL(done.url), {
        pkceCodeVerifier: verifier,
        expectedState: 's',
      });
      expect(signedIn.claims()!.sub).to.equal('mounted-user');
      expect(signedIn.claims()!.iss).to.equal(`${origin}/auth/oidc`);
    } finally {
      server.closeAllConnections();
      server.close();
      await service.close();
    }
  });

  it('keeps two instances in one process fully apart', async () => {
    const make = (id: string) =>
      createIdentityService({
        env: {
          STORAGE: 'memory',
          BASE_URL: `http://127.0.0.1:1/${id}`,
          ADMIN_CLIENT_ID: id,
          ADMIN_CLIENT_SECRET: `${id}-secret-0123456789`,
        },
        logger: pino({ level: 'silent' }),
        print: () => {},
      });
    const [a, b] = await Promise.all([make('first'), make('second')]);
    try {
      expect(await a.records.applications.findById('first')).not.to.equal(null);
      expect(await a.records.applications.findById('second')).to.equal(null);
      expect(await b.records.applications.findById('first')).to.equal(null);
      expect(a.provider.issuer).not.to.equal(b.provider.issuer);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
