import { expect } from 'chai';
import { startService, type RunningService } from '../support/service.ts';
import { createUser } from '../support/fixtures.ts';
import { createFormTokens } from '../../routes/interaction/csrf.ts';
import { REDIRECT, csrfToken, openSignIn, post } from '../support/security.ts';

const PASSWORD = 'a password for csrf';
const THRESHOLD = 2;

describe('CSRF tokens on the sign-in forms', () => {
  let running: RunningService;
  let username: string;
  let events: Array<Record<string, unknown>>;

  before(async () => {
    running = await startService({ env: { LOCKOUT_THRESHOLD: String(THRESHOLD), LOCKOUT_SECONDS: '600' } });
    username = String((await createUser(running, [], {}, PASSWORD)).username);
    events = [];
    running.service.core.bus.subscribe(async (published) => {
      events.push(...published);
    });
  });
  after(() => running.close());

  const named = (name: string) => events.filter((event) => event.event === name);

  it("refuses a sign-in without the token, or with another interaction's, with 403 and no password check", async () => {
    const signIn = await openSignIn(running);
    const other = await openSignIn(running);
    const forged: Array<Record<string, string>> = [
      { identifier: username, password: PASSWORD },
      { csrf_token: '', identifier: username, password: PASSWORD },
      { csrf_token: other.token, identifier: username, password: PASSWORD },
      { csrf_token: `${signIn.token}x`, identifier: username, password: PASSWORD },
      // Wrong passwords past the lockout threshold: were they checked, the account would now be locked.
      ...Array.from({ length: THRESHOLD + 1 }, (_, i) => ({ identifier: username, password: `wrong ${i}` })),
    ];
    for (const fields of forged) {
      const res = await post(signIn, '/login', fields);
      expect(res.status, JSON.stringify(fields)).to.equal(403);
      expect(await res.text()).to.include('not accepted');
    }
    expect(named('PostSignIn')).to.have.length(0);
    expect(named('Identifier.Lockout')).to.have.length(0);

    const genuine = await post(signIn, '/login', {
      csrf_token: signIn.token,
      identifier: username,
      password: PASSWORD,
    });
    expect(genuine.status).to.equal(303);
    expect(named('PostSignIn')).to.have.length(1);
  });

  it('refuses a JSON or empty body on the sign-in form', async () => {
    const signIn = await openSignIn(running);
    const json = await post(
      signIn,
      '/login',
      JSON.stringify({ csrf_token: signIn.token, identifier: username, password: PASSWORD }),
      {
        'content-type': 'application/json',
      },
    );
    expect(json.status).to.equal(403);
    const empty = await signIn.browser.request(`${signIn.url}/login`, { method: 'POST' });
    expect(empty.status).to.equal(403);
  });

  it('refuses consent and cancel without the token; with it they complete', async () => {
    const signIn = await openSignIn(running, { thirdParty: true });
    const consent = await signIn.browser.submit(
      `${signIn.url}/login`,
      { identifier: username, password: PASSWORD },
      REDIRECT,
    );
    const consentUrl = consent.url;
    const token = csrfToken(await consent.res.text());
    const interaction = { ...signIn, url: consentUrl, token };
    expect((await post(interaction, '/consent', {})).status).to.equal(403);
    expect((await post(interaction, '/consent', { csrf_token: signIn.token })).status).to.equal(403);
    expect((await post(interaction, '/abort', {})).status).to.equal(403);
    const allowed = await signIn.browser.submit(`${consentUrl}/consent`, {}, REDIRECT);
    expect(allowed.url.startsWith(REDIRECT), allowed.url).to.equal(true);
    expect(new URL(allowed.url).searchParams.get('code')).to.be.a('string');
  });

  it('refuses to cancel a sign-in without the token; with it the client gets access_denied', async () => {
    const signIn = await openSignIn(running);
    expect((await post(signIn, '/abort', {})).status).to.equal(403);
    const cancelled = await signIn.browser.submit(`${signIn.url}/abort`, {}, REDIRECT);
    expect(new URL(cancelled.url).searchParams.get('error')).to.equal('access_denied');
  });

  it('accepts a token issued under a cookie key that is no longer the first, for the same interaction only', () => {
    const old = createFormTokens(['old-cookie-key']);
    const rotated = createFormTokens(['new-cookie-key', 'old-cookie-key']);
    expect(rotated.verify('uid-1', old.issue('uid-1'))).to.equal(true);
    expect(rotated.verify('uid-2', old.issue('uid-1'))).to.equal(false);
    expect(createFormTokens(['new-cookie-key']).verify('uid-1', old.issue('uid-1'))).to.equal(false);
  });
});
