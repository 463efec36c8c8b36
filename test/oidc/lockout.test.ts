import { expect } from 'chai';
import * as client from 'openid-client';
import { startService, type RunningService } from '../support/service.ts';
import { createApplication, createUser } from '../support/fixtures.ts';
import { Browser, formAction } from '../support/browser.ts';

const REDIRECT = 'http://127.0.0.1:9/callback';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

for (const backend of ['embedded', 'redis'] as const) {
  describe(`identifier lockout on the sign-in page (${backend})`, () => {
    let running: RunningService;
    let events: Array<Record<string, unknown>>;
    let username: string;

    before(async () => {
      running = await startService({
        env: { LOCKOUT_THRESHOLD: '3', LOCKOUT_SECONDS: '1', REDIS_URL: backend === 'redis' ? REDIS_URL : undefined },
      });
      const user = await createUser(running, [], {}, 'the right password');
      username = String(user.username);
      events = [];
      running.service.core.bus.subscribe(async (published) => {
        events.push(...published.filter((event) => event.event === 'Identifier.Lockout'));
      });
    });
    after(() => running.close());

    async function attempt(password: string) {
      const app = await createApplication(running, { type: 'SPA', oidcClientMetadata: { redirectUris: [REDIRECT] } });
      const config = await client.discovery(new URL(`${running.baseUrl}/oidc`), app.id, undefined, client.None(), {
        execute: [client.allowInsecureRequests],
      });
      const url = client.buildAuthorizationUrl(config, {
        redirect_uri: REDIRECT, scope: 'openid', state: 's', code_challenge_method: 'S256',
        code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()),
      });
      const browser = new Browser();
      const login = await browser.follow(url.href, REDIRECT);
      const result = await browser.submit(formAction(await login.res.text()), { identifier: username, password }, REDIRECT);
      return { status: result.res.status, signedIn: result.url.startsWith(REDIRECT), page: result.url.startsWith(REDIRECT) ? '' : await result.res.text() };
    }

    it('locks after the threshold, refuses even the right password while locked, announces the lock once, then lets go', async () => {
      expect((await attempt('wrong 1')).status).to.equal(401);
      expect((await attempt('wrong 2')).status).to.equal(401);
      const third = await attempt('wrong 3');
      expect(third.status).to.equal(429);
      expect(third.page).to.include('Too many failed attempts');
      const whileLocked = await attempt('the right password');
      expect(whileLocked.signedIn).to.equal(false);
      expect(whileLocked.status).to.equal(429);
      expect(events).to.have.length(1);
      expect(events[0]).to.include({ event: 'Identifier.Lockout', type: 'username', value: username });

      await new Promise((resolve) => setTimeout(resolve, 1100));
      expect((await attempt('the right password')).signedIn, 'the lock expired').to.equal(true);
      expect(events).to.have.length(1);
    });

    it('forgets failures after a successful sign-in', async () => {
      expect((await attempt('wrong')).status).to.equal(401);
      expect((await attempt('wrong')).status).to.equal(401);
      expect((await attempt('the right password')).signedIn).to.equal(true);
      expect((await attempt('wrong')).status, 'the count started over').to.equal(401);
    });
  });
}
