import { expect } from 'chai';
import { startService, type RunningService } from '../support/service.ts';
import { createUser } from '../support/fixtures.ts';
import { REDIRECT, csrfToken, expectSecurePage, openSignIn, post } from '../support/security.ts';

const PASSWORD = 'a password for pages';
const CLIENT_ORIGIN = new URL(REDIRECT).origin;

describe('security headers of the HTML pages', () => {
  let running: RunningService;
  let username: string;

  before(async () => {
    running = await startService();
    username = String((await createUser(running, [], {}, PASSWORD)).username);
  });
  after(() => running.close());

  it('sign-in page: strict CSP, its stylesheet allowed by hash, forms to the service and the client, no framing', async () => {
    const signIn = await openSignIn(running);
    const res = await signIn.browser.request(signIn.url);
    const html = await res.text();
    expect(html).to.include('<style>');
    expect(expectSecurePage(res, html)).to.have.members([running.baseUrl, CLIENT_ORIGIN]);
  });

  it('sign-in page after a wrong password, and the consent page', async () => {
    const signIn = await openSignIn(running, { thirdParty: true });
    const wrong = await post(signIn, '/login', { csrf_token: signIn.token, identifier: username, password: 'wrong' });
    expect(wrong.status).to.equal(401);
    expect(expectSecurePage(wrong, await wrong.text())).to.have.members([running.baseUrl, CLIENT_ORIGIN]);

    const signedIn = await signIn.browser.submit(
      `${signIn.url}/login`,
      { identifier: username, password: PASSWORD },
      REDIRECT,
    );
    const consent = await signedIn.res.text();
    expect(consent).to.include('asks for access');
    expect(expectSecurePage(signedIn.res, consent)).to.have.members([running.baseUrl, CLIENT_ORIGIN]);
  });

  it('expired-interaction and refused-form pages allow no form at all', async () => {
    const expired = await fetch(`${running.baseUrl}/interaction/no-such-interaction`);
    expect(expired.status).to.equal(400);
    expect(expectSecurePage(expired, await expired.text())).to.deep.equal(["'none'"]);

    const signIn = await openSignIn(running);
    const refused = await post(signIn, '/login', { identifier: username, password: PASSWORD });
    expect(refused.status).to.equal(403);
    expect(expectSecurePage(refused, await refused.text())).to.deep.equal(["'none'"]);
  });

  it("the provider's error page", async () => {
    const res = await fetch(`${running.baseUrl}/oidc/auth?client_id=unknown&response_type=code&scope=openid`);
    expect(res.status).to.equal(400);
    const html = await res.text();
    expect(html).to.include('invalid_client');
    expect(html).not.to.include('googleapis');
    expect(expectSecurePage(res, html)).to.deep.equal([running.baseUrl]);
  });

  it("the provider's form_post response: its inline script allowed by hash, posting to the client only", async () => {
    const signIn = await openSignIn(running, { params: { response_mode: 'form_post' } });
    const done = await signIn.browser.submit(
      `${signIn.url}/login`,
      { identifier: username, password: PASSWORD },
      REDIRECT,
    );
    const html = await done.res.text();
    expect(done.res.status, html).to.equal(200);
    expect(html).to.include(`action="${REDIRECT}"`);
    expect(html).to.include('<script>');
    expect(expectSecurePage(done.res, html)).to.have.members([running.baseUrl, CLIENT_ORIGIN]);
  });

  it("the provider's logout pages: the confirmation, the auto-submitted form without a session, the success page", async () => {
    const signIn = await openSignIn(running);
    await signIn.browser.submit(`${signIn.url}/login`, { identifier: username, password: PASSWORD }, REDIRECT);
    const confirm = await signIn.browser.request(`${running.baseUrl}/oidc/session/end`);
    const confirmHtml = await confirm.text();
    expect(confirmHtml).to.include('sign out');
    expect(expectSecurePage(confirm, confirmHtml)).to.deep.equal([running.baseUrl]);

    const xsrf = /name="xsrf" value="([^"]+)"/.exec(confirmHtml)![1]!;
    const out = await signIn.browser.follow(`${running.baseUrl}/oidc/session/end/confirm`, REDIRECT, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ xsrf, logout: 'yes' }).toString(),
    });
    const success = await out.res.text();
    expect(success).to.include('Signed out');
    expectSecurePage(out.res, success);

    const anonymous = await fetch(`${running.baseUrl}/oidc/session/end`);
    const autoSubmit = await anonymous.text();
    expect(autoSubmit).to.include('<script>');
    expect(expectSecurePage(anonymous, autoSubmit)).to.deep.equal([running.baseUrl]);
  });

  it('JSON answers of the provider carry no page policy', async () => {
    const res = await fetch(`${running.baseUrl}/oidc/.well-known/openid-configuration`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-security-policy')).to.equal(null);
  });

  it('every form carries the CSRF token of its interaction', async () => {
    const signIn = await openSignIn(running, { thirdParty: true });
    const forms = [...signIn.html.matchAll(/<form\b[\s\S]*?<\/form>/g)].map((m) => m[0]);
    // Password sign-in, "Send code" for a sign-in code, and Cancel.
    expect(forms).to.have.length(3);
    for (const form of forms) expect(csrfToken(form)).to.equal(signIn.token);
    const consent = await signIn.browser.submit(
      `${signIn.url}/login`,
      { identifier: username, password: PASSWORD },
      REDIRECT,
    );
    const consentForms = [...(await consent.res.text()).matchAll(/<form\b[\s\S]*?<\/form>/g)].map((m) => m[0]);
    expect(consentForms).to.have.length(2);
    // Consent is an interaction of its own, with its own token.
    const consentToken = csrfToken(consentForms[0]!);
    expect(consentToken).not.to.equal(signIn.token);
    for (const form of consentForms) expect(csrfToken(form)).to.equal(consentToken);
  });
});
