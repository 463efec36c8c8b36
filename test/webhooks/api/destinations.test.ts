import { expect } from 'chai';
import { resolveSettings } from '../../../lib/settings.ts';
import type { RunningService } from '../../support/service.ts';
import { bodyOf, createHook, getJson, startHookService } from '../../support/webhooks/hooks.ts';
import { Receiver, eventually } from '../../support/webhooks/receiver.ts';

describe('hooks API: destinations outside the public internet', () => {
  let receiver: Receiver;
  let port: string;

  before(async () => {
    receiver = await Receiver.start();
    port = new URL(receiver.url('/')).port;
  });
  after(() => receiver.close());

  const loopbackUrls = () => [
    `http://127.0.0.1:${port}/plain`,
    `http://2130706433:${port}/decimal`,
    `http://0x7f.1:${port}/hex`,
    `http://127.1:${port}/short`,
    `http://[::ffff:127.0.0.1]:${port}/mapped`,
    `http://[::1]:${port}/v6`,
    `http://0.0.0.0:${port}/unspecified`,
  ];

  function expectRefusal(body: any): void {
    expect(body.code).to.equal('hook.destination_not_allowed');
    expect(body.message).to.match(/is not a public address; list its network in WEBHOOK_ALLOWED_NETWORKS/);
  }

  describe('by default (WEBHOOK_ALLOWED_NETWORKS unset)', () => {
    let running: RunningService;

    before(async () => {
      running = await startHookService('memory', { WEBHOOK_ALLOWED_NETWORKS: undefined });
    });
    after(() => running.close());

    it('refuses to register an IP-literal URL that is not public, in any notation (422)', async () => {
      for (const url of [
        ...loopbackUrls(),
        'http://169.254.169.254/latest/meta-data/',
        'http://10.0.0.1/',
        'http://[fd00::1]/',
      ]) {
        const response = await running.request('/api/hooks', {
          method: 'POST',
          json: { name: 'inward', events: ['User.Created'], config: { url } },
        });
        expect(response.status, url).to.equal(422);
        expectRefusal(await bodyOf(response));
      }
      const hook = await createHook(running, {
        events: ['User.Created'],
        config: { url: 'https://hooks.example.com/in' },
      });
      const patched = await running.request(`/api/hooks/${hook.id}`, {
        method: 'PATCH',
        json: { config: { url: `http://[::ffff:7f00:1]:${port}/` } },
      });
      expect(patched.status).to.equal(422);
      expectRefusal(await bodyOf(patched));
      expect((await getJson(running, `/api/hooks/${hook.id}`)).config.url).to.equal('https://hooks.example.com/in');
    });

    it('answers the test endpoint 422 hook.destination_not_allowed for each notation, before connecting', async () => {
      const hook = await createHook(running, {
        events: ['User.Created'],
        config: { url: 'https://hooks.example.com/in' },
      });
      for (const url of [...loopbackUrls(), `http://localhost:${port}/name`]) {
        const response = await running.request(`/api/hooks/${hook.id}/test`, {
          method: 'POST',
          json: { events: ['User.Created'], config: { url } },
        });
        expect(response.status, url).to.equal(422);
        expectRefusal(await bodyOf(response));
      }
      expect(receiver.requests()).to.deep.equal([]);
    });

    it('fails a queued delivery to a name resolving to loopback for good: logged, no response, nothing sent', async () => {
      const hook = await createHook(running, {
        events: ['Role.Created'],
        config: { url: `http://localhost:${port}/queued` },
      });
      expect((await running.request('/api/roles', { method: 'POST', json: { name: 'inward-role' } })).status).to.equal(
        201,
      );
      const [delivery] = await eventually(async () => {
        const list = await getJson(running, `/api/hooks/${hook.id}/deliveries`);
        return list[0]?.status === 'failed' ? list : undefined;
      });
      expect(delivery).to.include({ attempts: 1, nextRetryAt: null, lastResponseStatus: null });
      expect(delivery.lastError).to.match(
        /^destination localhost \(.+\) is not a public address; list its network in WEBHOOK_ALLOWED_NETWORKS/,
      );
      const [log] = await getJson(running, `/api/hooks/${hook.id}/recent-logs`);
      expect(log.payload).to.include({ result: 'Error', error: delivery.lastError, attempt: 1 });
      expect(log.payload).to.not.have.property('response');
      expect(receiver.requests()).to.deep.equal([]);
    });
  });

  describe('with loopback listed in WEBHOOK_ALLOWED_NETWORKS', () => {
    let running: RunningService;

    before(async () => {
      running = await startHookService('memory', { WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8, ::1/128' });
    });
    after(() => running.close());

    it('registers, tests and delivers to it', async () => {
      const hook = await createHook(running, {
        events: ['Role.Created'],
        config: { url: `http://2130706433:${port}/allowed` },
      });
      const tested = await running.request(`/api/hooks/${hook.id}/test`, {
        method: 'POST',
        json: { events: ['User.Created'], config: { url: `http://localhost:${port}/allowed-test` } },
      });
      expect(tested.status).to.equal(204);
      expect((await running.request('/api/roles', { method: 'POST', json: { name: 'allowed-role' } })).status).to.equal(
        201,
      );
      await eventually(() => receiver.requests('/allowed').length === 1);
      expect(receiver.requests('/allowed-test')).to.have.length(1);
    });
  });

  it('refuses to start with an invalid WEBHOOK_ALLOWED_NETWORKS, naming the bad entry', () => {
    expect(() => resolveSettings({ WEBHOOK_ALLOWED_NETWORKS: '10.0.0.0/8, 300.1.2.3/8' })).to.throw(
      /WEBHOOK_ALLOWED_NETWORKS: .*"300\.1\.2\.3\/8" is not an IP address or CIDR block/,
    );
    expect(() => resolveSettings({ WEBHOOK_ALLOWED_NETWORKS: 'fd00::/129' })).to.throw(/at most \/128/);
  });
});
