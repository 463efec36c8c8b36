import { expect } from 'chai';
import { startService, type RunningService } from '../support/service.ts';
import { createUser } from '../support/fixtures.ts';
import { csrfToken, directives, openSignIn, post, type Interaction } from '../support/security.ts';
import { totpCode } from '../support/mfa.ts';
import { FACTOR_PAGES } from '../../routes/interaction/passkeys.ts';

const PASSWORD = 'pages without script 7';

/**
 * The second-factor pages as a browser without JavaScript meets them: plain form posts with their CSRF token,
 * a 303 to the next step, a strict CSP (a data: image allowed on the setup page only), no caching of secrets.
 */
describe('MFA sign-in pages without JavaScript', () => {
  let running: RunningService;

  before(async () => {
    running = await startService();
  });
  after(() => running.close());

  async function page(signIn: Interaction, step: string) {
    const res = await signIn.browser.request(`${signIn.url}${step}`);
    return { res, html: await res.text() };
  }

  async function passwordStep(username: string): Promise<{ signIn: Interaction; location: string }> {
    const signIn = await openSignIn(running);
    const res = await post(signIn, '/login', { csrf_token: signIn.token, identifier: username, password: PASSWORD });
    expect(res.status).to.equal(303);
    return { signIn, location: res.headers.get('location')! };
  }

  it('asks for the authentication code after the password, checks the CSRF token, and goes on once it is right', async () => {
    const user = await createUser(running, [], {}, PASSWORD);
    const { secret } = (await (
      await running.request(`/api/users/${user.id}/mfa-verifications`, { method: 'POST', json: { type: 'Totp' } })
    ).json()) as { secret: string };
    const { signIn, location } = await passwordStep(user.username!);
    expect(location).to.equal(`${signIn.url}/mfa`);
    const shown = await page(signIn, '/mfa');
    expect(shown.res.status).to.equal(200);
    expect(shown.html).to.include('<label for="second-factor-code">Authentication code</label>');
    expect(shown.html, 'no backup codes: no link to them').not.to.include('Use a backup code');
    expect(
      directives(shown.res.headers.get('content-security-policy')).get('img-src') ?? [],
      'no data: image here',
    ).not.to.include('data:');
    const token = csrfToken(shown.html);

    const forged = await post(signIn, '/mfa', { code: totpCode(secret) });
    expect(forged.status).to.equal(403);
    for (const code of ['', '12', 'x'.repeat(500), '999999']) {
      const refused = await post(signIn, '/mfa', { csrf_token: token, code });
      expect(refused.status, code).to.equal(400);
      expect(await refused.text()).to.match(/Enter the code|The code is not right/);
    }
    const accepted = await post(signIn, '/mfa', { csrf_token: token, code: totpCode(secret) });
    expect(accepted.status, 'the forged post spent nothing: the code still works').to.equal(303);
    expect(accepted.headers.get('location')).to.include('/oidc/auth/');
  });

  it('enrolment: the setup page alone allows a data: image and is never cached; a wrong code keeps the key hidden', async () => {
    const admin = await running.request('/api/sign-in-exp', {
      method: 'PATCH',
      json: { mfa: { factors: ['Totp'], policy: 'PromptAtSignInAndSignUp' } },
    });
    expect(admin.status).to.equal(200);
    try {
      const user = await createUser(running, [], {}, PASSWORD);
      const { signIn, location } = await passwordStep(user.username!);
      expect(location).to.equal(`${signIn.url}/mfa/setup`);
      const setup = await page(signIn, '/mfa/setup');
      expect(directives(setup.res.headers.get('content-security-policy')).get('img-src')).to.deep.equal(['data:']);
      expect(setup.res.headers.get('cache-control')).to.equal('no-store');
      expect(setup.html).to.match(/<img class="qr" src="data:image\/png;base64,/);
      expect(setup.html).to.include('Skip for now');
      const secret = /aria-label="Setup key">([A-Z2-7 ]+)</.exec(setup.html)![1]!.replace(/ /g, '');
      const verificationId = /name="verificationId" value="([^"]+)"/.exec(setup.html)![1]!;
      const token = csrfToken(setup.html);

      const wrong = await post(signIn, '/mfa/setup', { csrf_token: token, verificationId, code: totpCode(secret, 7) });
      expect(wrong.status).to.equal(400);
      const retry = await wrong.text();
      expect(retry).to.include('The code is not right');
      expect(retry, 'the key is shown once').not.to.include(secret.slice(0, 8));
      expect(retry).not.to.include('data:image');
      const unknown = await post(signIn, '/mfa/setup', {
        csrf_token: token,
        verificationId: 'nope',
        code: totpCode(secret),
      });
      expect(unknown.status).to.be.within(400, 499);
      const done = await post(signIn, '/mfa/setup', { csrf_token: token, verificationId, code: totpCode(secret) });
      expect(done.status).to.equal(303);
      expect(done.headers.get('location')).to.include('/oidc/auth/');
      const factors = (await (await running.request(`/api/users/${user.id}/mfa-verifications`)).json()) as Array<{
        type: string;
      }>;
      expect(factors.map((factor) => factor.type)).to.deep.equal(['Totp']);

      const skipper = await createUser(running, [], {}, PASSWORD);
      const second = await passwordStep(skipper.username!);
      const skipPage = await page(second.signIn, '/mfa/setup');
      const skipped = await post(second.signIn, '/mfa/skip', { csrf_token: csrfToken(skipPage.html) });
      expect(skipped.status).to.equal(303);
      expect(skipped.headers.get('location')).to.include('/oidc/auth/');
    } finally {
      await running.request('/api/sign-in-exp', {
        method: 'PATCH',
        json: { mfa: { factors: [], policy: 'UserControlled' } },
      });
    }
  });

  it('sends the code page and the backup-code page to each other, never in a loop, whatever the account holds', async () => {
    const user = await createUser(running, [], {}, PASSWORD);
    await running.service.records.mfaVerifications.insert({
      id: `passkey-${user.id}`,
      userId: user.id,
      type: 'WebAuthn',
      createdAt: Date.now(),
      lastUsedAt: null,
      credentialId: `credential-${user.id}`,
      publicKey: 'AQID',
      counter: 0,
      transports: ['internal'],
      name: 'Laptop',
      agent: null,
    });
    const { signIn, location } = await passwordStep(user.username!);
    expect(location, 'a passkey is a factor to prove').to.equal(`${signIn.url}/mfa`);
    for (const step of ['/mfa', '/mfa/backup-code']) {
      const sent = await signIn.browser.request(`${signIn.url}${step}`);
      expect(sent.status, step).to.equal(303);
      expect(sent.headers.get('location'), 'to the passkey page, not to each other').to.equal(
        `${signIn.url}${FACTOR_PAGES.WebAuthn}`,
      );
    }
    const withCodes = await createUser(running, [], {}, PASSWORD);
    const { id } = (await (
      await running.request(`/api/users/${withCodes.id}/mfa-verifications`, { method: 'POST', json: { type: 'Totp' } })
    ).json()) as { id: string };
    await running.request(`/api/users/${withCodes.id}/mfa-verifications`, {
      method: 'POST',
      json: { type: 'BackupCode' },
    });
    await running.request(`/api/users/${withCodes.id}/mfa-verifications/${id}`, { method: 'DELETE' });
    const second = await passwordStep(withCodes.username!);
    expect(second.location).to.equal(`${second.signIn.url}/mfa`);
    const redirected = await second.signIn.browser.request(`${second.signIn.url}/mfa`);
    expect(redirected.status).to.equal(303);
    expect(redirected.headers.get('location')).to.equal(`${second.signIn.url}/mfa/backup-code`);
  });
});
