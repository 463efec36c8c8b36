import { expect } from 'chai';
import { startService, type RunningService } from '../support/service.ts';
import { withFakeClock } from '../support/clock.ts';
import {
  createInteractiveApp,
  createSignInUser,
  introspectedLifetime,
  lifetimeOf,
  refresh,
  signIn,
  type App,
} from '../support/settings.ts';

const DAY_MS = 24 * 3600 * 1000;
const OFFLINE = { scope: 'openid offline_access', prompt: 'consent' };

describe('application token settings through the authorization code flow', () => {
  let running: RunningService;
  let username: string;

  before(async () => {
    running = await startService();
    ({ username } = await createSignInUser(running));
  });
  after(() => running.close());

  const app = (type: 'Traditional' | 'SPA', settings: Record<string, unknown> = {}) =>
    createInteractiveApp(running, type, settings);

  describe('idTokenTtl', () => {
    it('is the ID token lifetime of the application, at sign-in and on refresh', async () => {
      const configured = await app('Traditional', { idTokenTtl: 600 });
      const tokens = await signIn(running, configured, username, OFFLINE);
      expect(lifetimeOf(tokens.id_token!)).to.equal(600);
      const refreshed = await refresh(running, configured, tokens.refresh_token!);
      expect(lifetimeOf(String(refreshed.body.id_token))).to.equal(600);
    });

    it('is an hour without the setting', async () => {
      const tokens = await signIn(running, await app('Traditional'), username, { scope: 'openid' });
      expect(lifetimeOf(tokens.id_token!)).to.equal(3600);
    });
  });

  describe('refreshTokenTtlInDays', () => {
    it('is the refresh token lifetime of the application', async () => {
      const configured = await app('Traditional', { refreshTokenTtlInDays: 3 });
      const tokens = await signIn(running, configured, username, OFFLINE);
      expect(await introspectedLifetime(running, configured, tokens.refresh_token!)).to.equal(3 * 24 * 3600);

      const plain = await app('Traditional');
      const defaults = await signIn(running, plain, username, OFFLINE);
      expect(await introspectedLifetime(running, plain, defaults.refresh_token!)).to.equal(14 * 24 * 3600);
    });

    it('keeps a refresh token usable past the default 14 days when set longer', async () => {
      const longer = await app('Traditional', { refreshTokenTtlInDays: 30 });
      const plain = await app('Traditional');
      const long = await signIn(running, longer, username, OFFLINE);
      const short = await signIn(running, plain, username, OFFLINE);
      await withFakeClock(async (clock) => {
        clock.advance(20 * DAY_MS);
        expect(
          (await refresh(running, longer, long.refresh_token!)).status,
          'the grant lives as long as the token',
        ).to.equal(200);
        const expired = await refresh(running, plain, short.refresh_token!);
        expect(expired.status).to.equal(400);
        expect(expired.body.error).to.equal('invalid_grant');
      });
    });

    it("takes Logto's refreshTokenTtl in seconds, refreshTokenTtlInDays winning when both are set", async () => {
      const seconds = await app('Traditional', { refreshTokenTtl: 7200 });
      const tokens = await signIn(running, seconds, username, OFFLINE);
      expect(await introspectedLifetime(running, seconds, tokens.refresh_token!)).to.equal(7200);
      const both = await app('Traditional', { refreshTokenTtl: 7200, refreshTokenTtlInDays: 2 });
      const bothTokens = await signIn(running, both, username, OFFLINE);
      expect(await introspectedLifetime(running, both, bothTokens.refresh_token!)).to.equal(2 * 24 * 3600);
      const res = await running.request('/api/applications', {
        method: 'POST',
        json: { name: 'x', type: 'Traditional', customClientMetadata: { refreshTokenTtl: 0 } },
      });
      expect(res.status).to.equal(400);
    });

    it('refuses a lifetime outside 1 to 730 days', async () => {
      for (const refreshTokenTtlInDays of [0, 731]) {
        const res = await running.request('/api/applications', {
          method: 'POST',
          json: { name: 'x', type: 'Traditional', customClientMetadata: { refreshTokenTtlInDays } },
        });
        expect(res.status).to.equal(400);
        expect(((await res.json()) as { code: string }).code).to.equal('guard.invalid_input');
      }
    });
  });

  describe('rotateRefreshToken', () => {
    /** Signs in, then refreshes once 80% of the refresh token's one-day life has passed. */
    async function refreshLate(configured: App) {
      const tokens = await signIn(running, configured, username, OFFLINE);
      return withFakeClock(async (clock) => {
        clock.advance(0.8 * DAY_MS);
        const first = await refresh(running, configured, tokens.refresh_token!);
        expect(first.status, JSON.stringify(first.body)).to.equal(200);
        const again = await refresh(running, configured, tokens.refresh_token!);
        return { original: tokens.refresh_token!, first, again };
      });
    }

    it("rotates a confidential client's refresh token late in its life by default (true)", async () => {
      for (const settings of [{}, { rotateRefreshToken: true }]) {
        const { original, first, again } = await refreshLate(
          await app('Traditional', { refreshTokenTtlInDays: 1, ...settings }),
        );
        expect(first.body.refresh_token).to.be.a('string').and.not.equal(original);
        expect(again.status, 'the replaced token is spent').to.equal(400);
      }
    });

    it('keeps the refresh token when false', async () => {
      const { original, first, again } = await refreshLate(
        await app('Traditional', { refreshTokenTtlInDays: 1, rotateRefreshToken: false }),
      );
      expect(first.body.refresh_token).to.equal(original);
      expect(again.status).to.equal(200);
      expect(again.body.refresh_token).to.equal(original);
    });

    it('cannot be turned off for public clients, whose tokens rotate on every use', async () => {
      for (const type of ['SPA', 'Native']) {
        const res = await running.request('/api/applications', {
          method: 'POST',
          json: { name: 'x', type, customClientMetadata: { rotateRefreshToken: false } },
        });
        expect(res.status).to.equal(422);
        expect(((await res.json()) as { code: string }).code).to.equal('application.refresh_token_rotation_required');
      }
      const spa = await app('SPA');
      const tokens = await signIn(running, spa, username, OFFLINE);
      const refreshed = await refresh(running, spa, tokens.refresh_token!);
      expect(refreshed.body.refresh_token).to.be.a('string').and.not.equal(tokens.refresh_token);
      const patched = await running.request(`/api/applications/${spa.id}`, {
        method: 'PATCH',
        json: { customClientMetadata: { rotateRefreshToken: false } },
      });
      expect(patched.status).to.equal(422);
    });

    it('ignores a false stored for a public client before it was refused', async () => {
      const spa = await app('SPA');
      await running.service.records.applications.update(spa.id, {
        customClientMetadata: { rotateRefreshToken: false },
      });
      const tokens = await signIn(running, spa, username, OFFLINE);
      const refreshed = await refresh(running, spa, tokens.refresh_token!);
      expect(refreshed.body.refresh_token).to.be.a('string').and.not.equal(tokens.refresh_token);
    });
  });

  describe('alwaysIssueRefreshToken', () => {
    it('issues a working refresh token without offline_access', async () => {
      const configured = await app('Traditional', { alwaysIssueRefreshToken: true });
      const tokens = await signIn(running, configured, username, { scope: 'openid' });
      expect(tokens.refresh_token).to.be.a('string');
      const refreshed = await refresh(running, configured, tokens.refresh_token!);
      expect(refreshed.status).to.equal(200);
      expect(refreshed.body.access_token).to.be.a('string');
    });

    it('issues none without offline_access when unset', async () => {
      const tokens = await signIn(running, await app('Traditional'), username, { scope: 'openid' });
      expect(tokens.refresh_token).to.equal(undefined);
    });
  });

  describe('on MachineToMachine applications', () => {
    it('refuses the settings that only apply to signing users in, at creation and on update', async () => {
      for (const setting of [
        { idTokenTtl: 600 },
        { refreshTokenTtlInDays: 3 },
        { rotateRefreshToken: true },
        { alwaysIssueRefreshToken: true },
      ]) {
        const res = await running.request('/api/applications', {
          method: 'POST',
          json: { name: 'x', type: 'MachineToMachine', customClientMetadata: setting },
        });
        expect(res.status).to.equal(422);
        const body = (await res.json()) as { code: string; data: { fields: string[] } };
        expect(body.code).to.equal('application.setting_not_applicable');
        expect(body.data.fields).to.deep.equal(Object.keys(setting));
      }
      const m2m = await running.request('/api/applications', {
        method: 'POST',
        json: {
          name: 'x',
          type: 'MachineToMachine',
          customClientMetadata: { corsAllowedOrigins: ['https://a.example'] },
        },
      });
      expect(m2m.status).to.equal(201);
      const { id } = (await m2m.json()) as { id: string };
      const patched = await running.request(`/api/applications/${id}`, {
        method: 'PATCH',
        json: { customClientMetadata: { alwaysIssueRefreshToken: true } },
      });
      expect(patched.status).to.equal(422);
      const stored = (await (await running.request(`/api/applications/${id}`)).json()) as {
        customClientMetadata: object;
      };
      expect(stored.customClientMetadata).not.to.have.property('alwaysIssueRefreshToken');
    });
  });
});
