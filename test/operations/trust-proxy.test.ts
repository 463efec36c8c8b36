import { expect } from 'chai';
import { resolveSettings } from '../../lib/settings.ts';
import { ConfigurationError } from '../../lib/config.ts';
import type { RunningService } from '../support/service.ts';
import { createApplication, createUser } from '../support/fixtures.ts';
import { createHook, startHookService } from '../support/webhooks/hooks.ts';
import { Receiver, eventually } from '../support/webhooks/receiver.ts';
import { REDIRECT, openSignIn, post } from '../support/security.ts';

const SPOOFED = '203.0.113.7';
const SOCKET = '127.0.0.1';
const PASSWORD = 'a password behind a proxy';

for (const [trustProxy, expected] of [
  [undefined, SOCKET],
  ['true', SPOOFED],
] as const) {
  describe(`client address with TRUST_PROXY ${trustProxy ?? 'unset'}`, () => {
    let running: RunningService;
    let receiver: Receiver;

    before(async () => {
      receiver = await Receiver.start();
      running = await startHookService('memory', trustProxy ? { TRUST_PROXY: trustProxy } : {});
      await createHook(running, { events: ['User.Created', 'PostSignIn'], config: { url: receiver.url('/events') } });
    });
    after(async () => {
      await running.close();
      await receiver.close();
    });

    const delivered = (event: string) =>
      eventually(() =>
        receiver
          .requests('/events')
          .map((request) => JSON.parse(request.body) as Record<string, unknown>)
          .find((payload) => payload.event === event),
      );

    it(`puts ${expected} in a management data event sent with X-Forwarded-For: ${SPOOFED}`, async () => {
      const res = await running.request('/api/users', {
        method: 'POST',
        json: { username: `proxied_${trustProxy ?? 'unset'}` },
        headers: { 'x-forwarded-for': SPOOFED },
      });
      expect(res.status).to.equal(201);
      expect((await delivered('User.Created')).ip).to.equal(expected);
    });

    it(`puts ${expected} in PostSignIn's userIp when the sign-in form comes with X-Forwarded-For: ${SPOOFED}`, async () => {
      const username = String((await createUser(running, [], {}, PASSWORD)).username);
      const signIn = await openSignIn(running);
      const res = await post(
        signIn,
        '/login',
        { csrf_token: signIn.token, identifier: username, password: PASSWORD },
        {
          'x-forwarded-for': SPOOFED,
        },
      );
      expect(res.status).to.equal(303);
      expect((await delivered('PostSignIn')).userIp).to.equal(expected);
    });

    it(`${trustProxy ? 'believes' : 'ignores'} X-Forwarded-Proto: https for the cookies' Secure attribute`, async () => {
      const app = await createApplication(running, { type: 'SPA', oidcClientMetadata: { redirectUris: [REDIRECT] } });
      const res = await fetch(
        `${running.baseUrl}/oidc/auth?${new URLSearchParams({
          client_id: app.id,
          response_type: 'code',
          scope: 'openid',
          redirect_uri: REDIRECT,
          code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
          code_challenge_method: 'S256',
        })}`,
        { redirect: 'manual', headers: { 'x-forwarded-proto': 'https' } },
      );
      expect(res.status).to.equal(303);
      const cookies = res.headers.getSetCookie();
      expect(cookies).not.to.be.empty;
      for (const cookie of cookies) expect(/;\s*secure/i.test(cookie), cookie).to.equal(Boolean(trustProxy));
    });
  });
}

describe('TRUST_PROXY configuration', () => {
  it('accepts true/false/1/0, defaults to false, refuses anything else', () => {
    expect(resolveSettings({}).TRUST_PROXY).to.equal(false);
    expect(resolveSettings({ TRUST_PROXY: 'true' }).TRUST_PROXY).to.equal(true);
    expect(resolveSettings({ TRUST_PROXY: '0' }).TRUST_PROXY).to.equal(false);
    expect(() => resolveSettings({ TRUST_PROXY: 'yes' })).to.throw(ConfigurationError, /TRUST_PROXY/);
  });
});
