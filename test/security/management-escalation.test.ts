import { expect } from 'chai';
import * as client from 'openid-client';
import { pino } from 'pino';
import { Browser, formAction } from '../support/browser.ts';
import { startService, clientCredentialsToken, ADMIN, type RunningService } from '../support/service.ts';
import { createApplication, createUser, oauthError, subjectToken, tokenRequest } from '../support/fixtures.ts';
import { bootstrap, CONSOLE_ADMIN_ROLE_ID, MANAGEMENT_RESOURCE_ID } from '../../lib/bootstrap.ts';
import { newId } from '../../lib/ids.ts';

const GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
const AT = 'urn:ietf:params:oauth:token-type:access_token';
const REDIRECT = 'http://127.0.0.1:9/callback';
const PASSWORD = 'correct horse battery staple';

/** Every hidden input of the page's first form (whatever the form carries besides the visible fields). */
function hiddenFields(html: string): Record<string, string> {
  const form = html.slice(html.indexOf('<form'), html.indexOf('</form>'));
  const fields: Record<string, string> = {};
  for (const [input] of form.matchAll(/<input[^>]*type="hidden"[^>]*>/g)) {
    const name = /name="([^"]*)"/.exec(input)?.[1];
    if (name) fields[name] = (/value="([^"]*)"/.exec(input)?.[1] ?? '').replace(/&#38;/g, '&');
  }
  return fields;
}

describe('impersonation cannot reach the management API', () => {
  let running: RunningService;
  let scopeIds: Record<string, string>;
  let supportToken: string;
  let exchanger: { id: string; secret?: string };

  async function json(res: Response) {
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  /** A User role holding the management `all` scope, written the way data could be before the fix. */
  async function legacyUserRoleWithAll() {
    const { roles } = running.service.records;
    const role = await roles.insert({
      id: newId(),
      name: `legacy-${newId(6)}`,
      description: '',
      type: 'User',
      isDefault: false,
      createdAt: Date.now(),
    });
    await roles.addScopes(role.id, [scopeIds.all!]);
    return role;
  }

  before(async () => {
    running = await startService();
    const scopes = (await (await running.request(`/api/resources/${MANAGEMENT_RESOURCE_ID}/scopes`)).json()) as Array<{
      id: string;
      name: string;
    }>;
    scopeIds = Object.fromEntries(scopes.map((scope) => [scope.name, scope.id]));

    // The support backend: an M2M application whose only management scope is subject-tokens:create.
    const backend = await createApplication(running, { type: 'MachineToMachine' });
    const role = await json(
      await running.request('/api/roles', {
        method: 'POST',
        json: { name: 'support backend', type: 'MachineToMachine', scopeIds: [scopeIds['subject-tokens:create']] },
      }),
    );
    expect(role.status).to.equal(201);
    expect(
      (
        await running.request(`/api/applications/${backend.id}/roles`, {
          method: 'POST',
          json: { roleIds: [role.body.id] },
        })
      ).status,
    ).to.equal(201);
    supportToken = await clientCredentialsToken(
      running.baseUrl,
      backend.id,
      backend.secret!,
      `${running.baseUrl}/api`,
      'all subject-tokens:create',
    );
    exchanger = await createApplication(running, {
      type: 'Traditional',
      customClientMetadata: { allowTokenExchange: true },
    });
  });
  after(() => running.close());

  it('the support token holds subject-tokens:create and nothing else', async () => {
    const payload = JSON.parse(Buffer.from(supportToken.split('.')[1]!, 'base64url').toString()) as { scope: string };
    expect(payload.scope).to.equal('subject-tokens:create');
    expect((await running.request('/api/applications', { token: supportToken })).status).to.equal(403);
  });

  it('refuses every step of the chain: user role with `all`, then an exchange for the management API', async () => {
    // (a) A User role can never hold a management scope, at creation or later.
    const created = await json(
      await running.request('/api/roles', {
        method: 'POST',
        json: { name: `escalate-${newId(6)}`, type: 'User', scopeIds: [scopeIds.all] },
      }),
    );
    expect(created.status).to.equal(400);
    expect(created.body.code).to.equal('role.management_api_scopes_not_assignable_to_user_role');
    const roles = (await (await running.request('/api/roles?search=%25escalate%25')).json()) as unknown[];
    expect(roles, 'the refused role was not created').to.have.length(0);

    const plain = await json(
      await running.request('/api/roles', { method: 'POST', json: { name: `plain-${newId(6)}`, type: 'User' } }),
    );
    for (const scope of ['all', 'subject-tokens:create']) {
      const added = await json(
        await running.request(`/api/roles/${plain.body.id}/scopes`, {
          method: 'POST',
          json: { scopeIds: [scopeIds[scope]] },
        }),
      );
      expect(added.status, scope).to.equal(400);
      expect(added.body.code).to.equal('role.management_api_scopes_not_assignable_to_user_role');
    }
    const held = (await (await running.request(`/api/roles/${plain.body.id}/scopes`)).json()) as unknown[];
    expect(held).to.have.length(0);

    // (b) A user whom older data gave such a role is protected: no subject token is issued for them ...
    const victim = await createUser(running, [(await legacyUserRoleWithAll()).id]);
    const refused = await json(
      await running.request('/api/subject-tokens', {
        method: 'POST',
        token: supportToken,
        json: { userId: victim.id },
      }),
    );
    expect([refused.status, refused.body.code]).to.deep.equal([422, 'user.impersonation_protected']);
    const ordinary = await createUser(running);
    const issued = await json(
      await running.request('/api/subject-tokens', {
        method: 'POST',
        token: supportToken,
        json: { userId: ordinary.id },
      }),
    );
    expect(issued.status).to.equal(201);
    const token = issued.body.subjectToken as string;

    // (c) ... and an exchange for anyone never targets the management API.
    const exchanged = await tokenRequest(
      running,
      {
        grant_type: GRANT,
        subject_token: token,
        subject_token_type: AT,
        resource: `${running.baseUrl}/api`,
        scope: 'all',
      },
      exchanger,
    );
    expect(exchanged.status).to.equal(400);
    expect(exchanged.body).to.deep.equal(
      oauthError('invalid_target', 'the management API cannot be a token-exchange target'),
    );
    expect(exchanged.body).not.to.have.property('access_token');
  });

  it('issues no subject token for a console admin, and refuses the management API as an exchange target', async () => {
    const admin = await createUser(running, [CONSOLE_ADMIN_ROLE_ID]);
    const refused = await json(
      await running.request('/api/subject-tokens', { method: 'POST', json: { userId: admin.id } }),
    );
    expect([refused.status, refused.body.code]).to.deep.equal([422, 'user.impersonation_protected']);
    const user = await createUser(running);
    for (const scope of ['all', '']) {
      const { status, body } = await tokenRequest(
        running,
        {
          grant_type: GRANT,
          subject_token: await subjectToken(running, user.id),
          subject_token_type: AT,
          resource: `${running.baseUrl}/api`,
          scope,
        },
        exchanger,
      );
      expect(status).to.equal(400);
      expect(body.error).to.equal('invalid_target');
    }
  });

  /** Signs `username` in through the sign-in page and returns its access token for the management API. */
  async function signInForManagement(app: { id: string; secret?: string }, username: string): Promise<string> {
    const config = await client.discovery(new URL(`${running.baseUrl}/oidc`), app.id, app.secret, undefined, {
      execute: [client.allowInsecureRequests],
    });
    const verifier = client.randomPKCECodeVerifier();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT,
      scope: 'openid all',
      resource: `${running.baseUrl}/api`,
      state: 'st',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    const browser = new Browser();
    const page = await (await browser.follow(url.href, REDIRECT)).res.text();
    const callback = await browser.submit(
      formAction(page),
      {
        ...hiddenFields(page),
        identifier: username,
        password: PASSWORD,
      },
      REDIRECT,
    );
    expect(callback.url.startsWith(REDIRECT), `signed in: ${callback.res.status}`).to.equal(true);
    const tokens = await client.authorizationCodeGrant(
      config,
      new URL(callback.url),
      {
        pkceCodeVerifier: verifier,
        expectedState: 'st',
      },
      { resource: `${running.baseUrl}/api` },
    );
    return tokens.access_token;
  }

  it('grants management scopes at sign-in only through the console-admin role', async () => {
    const app = await createApplication(running, {
      type: 'Traditional',
      oidcClientMetadata: { redirectUris: [REDIRECT] },
    });
    const admin = await createUser(running, [CONSOLE_ADMIN_ROLE_ID], { username: `admin_${newId(6)}` }, PASSWORD);
    const adminToken = await signInForManagement(app, admin.username!);
    expect((await running.request('/api/applications', { token: adminToken })).status).to.equal(200);

    // A User role that holds `all` from data written before the fix grants nothing on the management API.
    const legacy = await createUser(
      running,
      [(await legacyUserRoleWithAll()).id],
      { username: `legacy_${newId(6)}` },
      PASSWORD,
    );
    const legacyToken = await signInForManagement(app, legacy.username!);
    const payload = JSON.parse(Buffer.from(legacyToken.split('.')[1]!, 'base64url').toString()) as { scope?: string };
    expect(payload.scope ?? '').to.equal('');
    expect((await running.request('/api/applications', { token: legacyToken })).status).to.equal(403);
  });

  describe('the console-admin role', () => {
    it('is created at bootstrap: a User role named "Console admin" holding the management `all` scope', async () => {
      const role = await json(await running.request(`/api/roles/${CONSOLE_ADMIN_ROLE_ID}`));
      expect(role.body).to.include({
        id: CONSOLE_ADMIN_ROLE_ID,
        name: 'Console admin',
        type: 'User',
        isDefault: false,
      });
      const scopes = (await (await running.request(`/api/roles/${CONSOLE_ADMIN_ROLE_ID}/scopes`)).json()) as Array<{
        id: string;
      }>;
      expect(scopes.map((scope) => scope.id)).to.deep.equal([scopeIds.all]);
    });

    it('is created idempotently: bootstrapping again changes nothing', async () => {
      const { records: repositories } = running.service;
      for (let run = 0; run < 2; run += 1) {
        await bootstrap({
          repositories,
          managementIndicator: `${running.baseUrl}/api`,
          adminClientId: ADMIN.id,
          adminClientSecret: ADMIN.secret,
          logger: pino({ level: 'silent' }),
          print: () => {},
        });
      }
      const named = (await (await running.request('/api/roles?search=Console%20admin')).json()) as Array<{
        id: string;
      }>;
      expect(named.map((role) => role.id)).to.deep.equal([CONSOLE_ADMIN_ROLE_ID]);
      expect(await repositories.roles.scopeIdsOf([CONSOLE_ADMIN_ROLE_ID])).to.deep.equal([scopeIds.all]);
    });

    it('cannot be deleted, renamed, made default, retyped or have its scopes changed', async () => {
      const attempts: Array<[string, string, unknown?]> = [
        ['DELETE', `/api/roles/${CONSOLE_ADMIN_ROLE_ID}`],
        ['PATCH', `/api/roles/${CONSOLE_ADMIN_ROLE_ID}`, { name: 'Renamed admin' }],
        ['PATCH', `/api/roles/${CONSOLE_ADMIN_ROLE_ID}`, { isDefault: true }],
        ['POST', `/api/roles/${CONSOLE_ADMIN_ROLE_ID}/scopes`, { scopeIds: [scopeIds['subject-tokens:create']] }],
        ['DELETE', `/api/roles/${CONSOLE_ADMIN_ROLE_ID}/scopes/${scopeIds.all}`],
      ];
      for (const [method, path, body] of attempts) {
        const res = await json(await running.request(path, { method, json: body }));
        expect(res.status, `${method} ${path}`).to.equal(422);
        expect(res.body.code).to.equal('role.protected');
      }
      const retyped = await json(
        await running.request(`/api/roles/${CONSOLE_ADMIN_ROLE_ID}`, {
          method: 'PATCH',
          json: { type: 'MachineToMachine' },
        }),
      );
      expect(retyped.status, 'a role type never changes').to.equal(400);

      const role = await json(await running.request(`/api/roles/${CONSOLE_ADMIN_ROLE_ID}`));
      expect(role.body).to.include({ name: 'Console admin', type: 'User', isDefault: false });
      const scopes = (await (await running.request(`/api/roles/${CONSOLE_ADMIN_ROLE_ID}/scopes`)).json()) as Array<{
        id: string;
      }>;
      expect(scopes.map((scope) => scope.id)).to.deep.equal([scopeIds.all]);

      const described = await json(
        await running.request(`/api/roles/${CONSOLE_ADMIN_ROLE_ID}`, {
          method: 'PATCH',
          json: { description: 'Our operators', name: 'Console admin' },
        }),
      );
      expect(described.status, 'the description may change').to.equal(200);
    });

    it('can be given to users', async () => {
      const user = await createUser(running);
      const res = await running.request(`/api/users/${user.id}/roles`, {
        method: 'POST',
        json: { roleIds: [CONSOLE_ADMIN_ROLE_ID] },
      });
      expect(res.status).to.be.oneOf([200, 201]);
    });
  });

  describe('the management API resource', () => {
    const path = `/api/resources/${MANAGEMENT_RESOURCE_ID}`;

    it('cannot be renamed, made default, deleted, or have its scopes added, changed or removed', async () => {
      const attempts: Array<[string, string, unknown?]> = [
        ['PATCH', path, { name: 'Mine now' }],
        ['PATCH', `${path}/is-default`, { isDefault: true }],
        ['DELETE', path],
        ['POST', `${path}/scopes`, { name: 'users:read' }],
        ['PATCH', `${path}/scopes/${scopeIds['subject-tokens:create']}`, { name: 'anything' }],
        ['DELETE', `${path}/scopes/${scopeIds['subject-tokens:create']}`],
      ];
      for (const [method, target, body] of attempts) {
        const res = await json(await running.request(target, { method, json: body }));
        expect(res.status, `${method} ${target}`).to.equal(400);
        expect(res.body.code).to.equal('resource.cannot_modify_management_api');
      }
      const resource = await json(await running.request(path));
      expect(resource.body).to.include({ name: 'Management API', isDefault: false });
      const scopes = (await (await running.request(`${path}/scopes`)).json()) as Array<{ name: string }>;
      expect(scopes.map((scope) => scope.name).sort()).to.deep.equal(['all', 'events:read', 'subject-tokens:create']);
    });

    it('keeps its token lifetime adjustable', async () => {
      const res = await json(await running.request(path, { method: 'PATCH', json: { accessTokenTtl: 1800 } }));
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ name: 'Management API', accessTokenTtl: 1800 });
    });
  });
});
