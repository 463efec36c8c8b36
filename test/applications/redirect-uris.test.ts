import { expect } from 'chai';
import { startService, type RunningService } from '../support/service.ts';
import { createApplication, createUser, subjectToken, tokenRequest } from '../support/fixtures.ts';
import { newId } from '../../lib/ids.ts';

const GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
const AT = 'urn:ietf:params:oauth:token-type:access_token';
const NATIVE_CALLBACK = 'com.example.app:/oauth/callback';

type Field = 'redirectUris' | 'postLogoutRedirectUris';

interface ErrorBody {
  code: string;
  data?: { issues: Array<{ path: string; message: string }> };
}

/** Shapes node-oidc-provider refuses, per application type and field. */
const REFUSED: Array<{ type: string; field: Field; uri: string; why: RegExp }> = [
  { type: 'Traditional', field: 'redirectUris', uri: 'https://app.example.com/cb#section', why: /fragment/ },
  { type: 'Traditional', field: 'redirectUris', uri: 'https://app.example.com/cb#', why: /fragment/ },
  { type: 'SPA', field: 'redirectUris', uri: NATIVE_CALLBACK, why: /http or https/ },
  { type: 'Traditional', field: 'redirectUris', uri: 'javascript:alert(1)', why: /http or https/ },
  { type: 'SPA', field: 'postLogoutRedirectUris', uri: 'myapp://signed-out', why: /http or https/ },
  { type: 'Traditional', field: 'postLogoutRedirectUris', uri: 'https://app.example.com/bye#now', why: /fragment/ },
  { type: 'Native', field: 'redirectUris', uri: `${NATIVE_CALLBACK}#x`, why: /fragment/ },
  { type: 'Native', field: 'redirectUris', uri: 'javascript:alert(1)', why: /javascript scheme/ },
  { type: 'Native', field: 'redirectUris', uri: 'file:///etc/passwd', why: /file scheme/ },
  { type: 'Native', field: 'redirectUris', uri: 'http://app.example.com/cb', why: /loopback/ },
  { type: 'Native', field: 'redirectUris', uri: 'https://localhost/cb', why: /loopback/ },
  { type: 'Native', field: 'postLogoutRedirectUris', uri: 'data:text/html,hi', why: /data scheme/ },
];

describe('redirect URIs are validated as the OIDC provider will read them', () => {
  let running: RunningService;

  before(async () => {
    running = await startService();
  });
  after(() => running.close());

  function expectRefused(status: number, body: ErrorBody, field: Field, why: RegExp) {
    expect(status).to.equal(400);
    expect(body.code).to.equal('guard.invalid_input');
    const issue = body.data!.issues.find((item) => item.path === `body.oidcClientMetadata.${field}.0`);
    expect(issue, JSON.stringify(body)).to.not.equal(undefined);
    expect(issue!.message).to.match(why);
  }

  /** A token exchange by the application: fails with invalid_client when the provider refuses its metadata. */
  async function exchangeWorks(app: { id: string; secret?: string }) {
    const user = await createUser(running);
    const { status, body } = await tokenRequest(
      running,
      {
        grant_type: GRANT,
        subject_token: await subjectToken(running, user.id),
        subject_token_type: AT,
        scope: 'openid',
        client_id: app.secret ? undefined : app.id,
      },
      app,
    );
    return { status, body };
  }

  for (const { type, field, uri, why } of REFUSED) {
    it(`refuses ${uri} in ${field} of a ${type} application, at creation and update`, async () => {
      const name = `app-${newId(6)}`;
      const created = await running.request('/api/applications', {
        method: 'POST',
        json: { name, type, oidcClientMetadata: { [field]: [uri] } },
      });
      expectRefused(created.status, (await created.json()) as ErrorBody, field, why);
      const listed = (await (await running.request(`/api/applications?search=${name}`)).json()) as unknown[];
      expect(listed, 'nothing was created').to.have.length(0);

      const app = await createApplication(running, { type });
      const updated = await running.request(`/api/applications/${app.id}`, {
        method: 'PATCH',
        json: { oidcClientMetadata: { [field]: [uri] } },
      });
      expectRefused(updated.status, (await updated.json()) as ErrorBody, field, why);
      const stored = (await (await running.request(`/api/applications/${app.id}`)).json()) as {
        oidcClientMetadata: Record<Field, string[]>;
      };
      expect(stored.oidcClientMetadata[field]).to.deep.equal([]);
    });
  }

  it('accepts a native custom scheme and loopback http, and the application keeps working', async () => {
    const res = await running.request('/api/applications', {
      method: 'POST',
      json: {
        name: 'native',
        type: 'Native',
        customClientMetadata: { allowTokenExchange: true },
        oidcClientMetadata: {
          redirectUris: [NATIVE_CALLBACK, 'http://127.0.0.1/cb'],
          postLogoutRedirectUris: ['com.example.app:/bye'],
        },
      },
    });
    expect(res.status).to.equal(201);
    const app = (await res.json()) as { id: string };
    expect((await exchangeWorks(app)).status).to.equal(200);

    const patched = await running.request(`/api/applications/${app.id}`, {
      method: 'PATCH',
      json: { oidcClientMetadata: { redirectUris: ['com.example.other:/cb', 'http://[::1]:8080/cb'] } },
    });
    expect(patched.status).to.equal(200);

    const auth = await fetch(
      `${running.baseUrl}/oidc/auth?${new URLSearchParams({
        client_id: app.id,
        response_type: 'code',
        scope: 'openid',
        redirect_uri: 'com.example.other:/cb',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
      })}`,
      { redirect: 'manual' },
    );
    expect(auth.status, 'the authorization request goes on to sign-in').to.be.oneOf([302, 303]);
    expect(auth.headers.get('location')).to.include('/interaction/');
  });

  it('leaves out a URI stored before validation instead of breaking every grant of the application', async () => {
    const app = await createApplication(running, {
      type: 'Traditional',
      customClientMetadata: { allowTokenExchange: true },
    });
    await running.service.records.applications.update(app.id, {
      oidcClientMetadata: {
        redirectUris: ['https://app.example.com/cb#old', 'https://app.example.com/cb'],
        postLogoutRedirectUris: [],
      },
    });
    expect((await exchangeWorks(app)).status).to.equal(200);
  });
});
