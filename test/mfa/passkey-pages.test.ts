import { expect } from 'chai';
import { startService, type RunningService } from '../support/service.ts';
import { createUser } from '../support/fixtures.ts';
import { SoftPasskey, type CeremonyOptions } from '../support/webauthn.ts';
import { csrfToken, directives, openSignIn, post, type Interaction } from '../support/security.ts';

const PASSWORD = 'passkey pages 42';

const decodeEntities = (text: string) =>
  text.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)));

/** What the passkey page's form carries: the challenge (as the script reads it) and its verification. */
function formOf(html: string): { options: CeremonyOptions; verificationId: string; token: string } {
  const options = /data-options="([^"]*)"/.exec(html)?.[1];
  const verificationId = /name="verificationId" value="([^"]*)"/.exec(html)?.[1];
  if (options === undefined || verificationId === undefined) throw new Error(`no passkey form: ${html.slice(0, 300)}`);
  return {
    options: JSON.parse(decodeEntities(options)) as CeremonyOptions,
    verificationId: decodeEntities(verificationId),
    token: csrfToken(html),
  };
}

/**
 * The passkey pages as plain HTTP meets them: the challenge in the form, the answer posted back in `payload`, a CSP
 * naming the one script file, and every bad answer shown on a page with a new challenge (4xx, never 500).
 */
describe('passkey sign-in pages (forms and their script)', () => {
  let running: RunningService;

  before(async () => {
    running = await startService();
  });
  after(() => running.close());

  async function passwordStep(username: string): Promise<{ signIn: Interaction; location: string }> {
    const signIn = await openSignIn(running);
    const res = await post(signIn, '/login', { csrf_token: signIn.token, identifier: username, password: PASSWORD });
    expect(res.status).to.equal(303);
    return { signIn, location: res.headers.get('location')! };
  }

  async function get(signIn: Interaction, step: string) {
    const res = await signIn.browser.request(`${signIn.url}${step}`);
    return { res, html: await res.text() };
  }

  it('enrols a passkey where the policy asks for one, then proves it at the next sign-in; bad answers get the page again', async () => {
    const settings = await running.request('/api/sign-in-exp', {
      method: 'PATCH',
      json: { mfa: { factors: ['WebAuthn'], policy: 'Mandatory' } },
    });
    expect(settings.status).to.equal(200);
    try {
      const user = await createUser(running, [], {}, PASSWORD);
      const passkey = new SoftPasskey(running.baseUrl);
      const first = await passwordStep(user.username!);
      expect(first.location).to.equal(`${first.signIn.url}/mfa/setup`);
      const toPasskey = await first.signIn.browser.request(first.location);
      expect(toPasskey.status, 'TOTP is not offered: the setup page is the passkey one').to.equal(303);
      expect(toPasskey.headers.get('location')).to.equal(`${first.signIn.url}/mfa/passkey/setup`);
      const setup = await get(first.signIn, '/mfa/passkey/setup');
      expect(setup.res.status).to.equal(200);
      const script = `${running.baseUrl}/interaction/assets/passkey.js`;
      expect(directives(setup.res.headers.get('content-security-policy')).get('script-src')).to.deep.equal([script]);
      expect(setup.html).to.include(`<script src="${script}" defer></script>`);
      expect(setup.html, 'no inline script').not.to.match(/<script>/);
      expect(setup.res.headers.get('cache-control')).to.equal('no-store');
      const enrol = formOf(setup.html);
      const created = await post(first.signIn, '/mfa/passkey/setup', {
        csrf_token: enrol.token,
        verificationId: enrol.verificationId,
        payload: JSON.stringify(passkey.register(enrol.options)),
      });
      expect(created.status, await created.clone().text()).to.equal(303);
      expect(created.headers.get('location')).to.include('/oidc/auth/');

      const asset = await fetch(script);
      expect(asset.status).to.equal(200);
      expect(asset.headers.get('content-type')).to.match(/^application\/javascript/);
      expect(await asset.text()).to.include('navigator.credentials.get');

      const second = await passwordStep(user.username!);
      expect(second.location).to.equal(`${second.signIn.url}/mfa`);
      const toProve = await second.signIn.browser.request(second.location);
      expect(toProve.status).to.equal(303);
      expect(toProve.headers.get('location')).to.equal(`${second.signIn.url}/mfa/passkey`);
      let shown = await get(second.signIn, '/mfa/passkey');
      expect(shown.html).to.include('Use a passkey');

      const answers: Array<[string, (form: ReturnType<typeof formOf>) => Record<string, string>, RegExp]> = [
        [
          'no answer (no JavaScript)',
          (form) => ({ csrf_token: form.token, verificationId: form.verificationId }),
          /this needs JavaScript/,
        ],
        [
          'not JSON',
          (form) => ({ csrf_token: form.token, verificationId: form.verificationId, payload: '{nope' }),
          /this needs JavaScript/,
        ],
        [
          'another origin',
          (form) => ({
            csrf_token: form.token,
            verificationId: form.verificationId,
            payload: JSON.stringify(passkey.assert(form.options, 'http://evil.example')),
          }),
          /could not be verified/,
        ],
        [
          'another passkey',
          (form) => ({
            csrf_token: form.token,
            verificationId: form.verificationId,
            payload: JSON.stringify(new SoftPasskey(running.baseUrl).assert(form.options)),
          }),
          /could not be verified/,
        ],
      ];
      for (const [what, fields, says] of answers) {
        const refused = await post(second.signIn, '/mfa/passkey', fields(formOf(shown.html)));
        const html = await refused.text();
        expect(refused.status, what).to.equal(400);
        expect(html, what).to.match(says);
        expect(directives(refused.headers.get('content-security-policy')).get('script-src'), what).to.deep.equal([
          script,
        ]);
        shown = { res: refused, html };
      }
      const proved = formOf(shown.html);
      const accepted = await post(second.signIn, '/mfa/passkey', {
        csrf_token: proved.token,
        verificationId: proved.verificationId,
        payload: JSON.stringify(passkey.assert(proved.options)),
      });
      expect(accepted.status, await accepted.clone().text()).to.equal(303);
      expect(accepted.headers.get('location')).to.include('/oidc/auth/');
    } finally {
      await running.request('/api/sign-in-exp', {
        method: 'PATCH',
        json: { mfa: { factors: [], policy: 'UserControlled' } },
      });
    }
  });

  it('with both an app and passkeys offered, each setup page leads to the other', async () => {
    const settings = await running.request('/api/sign-in-exp', {
      method: 'PATCH',
      json: { mfa: { factors: ['Totp', 'WebAuthn'], policy: 'Mandatory' } },
    });
    expect(settings.status).to.equal(200);
    try {
      const user = await createUser(running, [], {}, PASSWORD);
      const { signIn, location } = await passwordStep(user.username!);
      expect(location).to.equal(`${signIn.url}/mfa/setup`);
      const app = await get(signIn, '/mfa/setup');
      expect(app.html).to.include('Set up two-step verification');
      expect(app.html).to.include(`<a href="${signIn.url}/mfa/passkey/setup">Use a passkey instead</a>`);
      expect(
        directives(app.res.headers.get('content-security-policy')).has('script-src'),
        'the app setup runs no script',
      ).to.equal(false);
      const passkey = await get(signIn, '/mfa/passkey/setup');
      expect(passkey.html).to.include(`<a href="${signIn.url}/mfa/setup">Use an authenticator app instead</a>`);
    } finally {
      await running.request('/api/sign-in-exp', {
        method: 'PATCH',
        json: { mfa: { factors: [], policy: 'UserControlled' } },
      });
    }
  });
});
