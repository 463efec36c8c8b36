import { createPublicKey, verify } from 'node:crypto';
import { expect } from 'chai';
import type { RunningService } from '../../support/service.ts';
import { craftedEvent } from '../../support/events.ts';
import { withFakeClock } from '../../support/clock.ts';
import { BACKENDS, bodyOf, createHook, getJson, startHookService } from '../../support/webhooks/hooks.ts';
import { Receiver, eventually, type ReceivedRequest } from '../../support/webhooks/receiver.ts';

/**
 * Verifies a `v1a` signature as a consumer holding only the public key would, with node:crypto alone: the key from its
 * 32 bytes (a JWK), the signature over `webhook-id.webhook-timestamp.body`. True when one of the header's signatures
 * verifies.
 */
function verifiesWith(publicKey: string, request: ReceivedRequest): boolean {
  expect(publicKey).to.match(/^whpk_/);
  const raw = Buffer.from(publicKey.slice('whpk_'.length), 'base64');
  expect(raw).to.have.length(32);
  const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') }, format: 'jwk' });
  const content = Buffer.from(
    `${request.headers['webhook-id']}.${request.headers['webhook-timestamp']}.${request.body}`,
    'utf8',
  );
  return String(request.headers['webhook-signature'])
    .split(' ')
    .some((entry) => {
      const [version, signature] = entry.split(',');
      return version === 'v1a' && verify(null, content, key, Buffer.from(signature!, 'base64'));
    });
}

async function createUser(running: RunningService, username: string): Promise<void> {
  const res = await running.request('/api/users', { method: 'POST', json: { username } });
  expect(res.status).to.equal(201);
}

for (const backend of BACKENDS) {
  describe(`Ed25519-signed hooks (${backend})`, () => {
    let running: RunningService;
    let receiver: Receiver;
    before(async () => {
      receiver = await Receiver.start();
      running = await startHookService(backend, { WEBHOOK_SIGNING_KEY_GRACE_SECONDS: '3600' });
    });
    after(async () => {
      await running?.close();
      await receiver?.close();
    });

    it('signs deliveries with v1a only, verifiable with the public key the hook exposes and no shared secret', async () => {
      const hook = await createHook(running, {
        signature: 'ed25519',
        events: ['User.Created'],
        config: { url: receiver.url('/ed') },
      });
      expect(hook).to.include({ signature: 'ed25519' });
      expect(hook).to.not.have.property('signingKey');
      const shown = await getJson(running, `/api/hooks/${hook.id}`);
      expect(shown).to.include({ signature: 'ed25519', publicKey: hook.publicKey });
      expect(JSON.stringify(await getJson(running, '/api/hooks'))).to.not.match(/whsk_|whsec_/);

      await createUser(running, 'ed_user');
      const request = await eventually(() => receiver.requests('/ed')[0], { what: 'the delivery' });
      expect(String(request.headers['webhook-signature'])).to.match(/^v1a,[A-Za-z0-9+/]+=*$/);
      expect(request.headers).to.not.have.property('logto-signature-sha-256');
      expect(verifiesWith(String(hook.publicKey), request)).to.equal(true);
      const tampered = { ...request, body: request.body.replace('ed_user', 'ed_usex') };
      expect(verifiesWith(String(hook.publicKey), tampered)).to.equal(false);
    });

    it('keeps hmac as the default, and refuses an unknown scheme or a change of scheme', async () => {
      const hook = await createHook(running, { events: ['User.Created'], config: { url: receiver.url('/hmac') } });
      expect(hook).to.include({ signature: 'hmac', publicKey: null });
      expect(hook.signingKey).to.match(/^whsec_/);
      const bad = await running.request('/api/hooks', {
        method: 'POST',
        json: { signature: 'rsa', events: ['User.Created'], config: { url: receiver.url('/x') } },
      });
      expect(bad.status).to.equal(400);
      expect((await bodyOf(bad)).code).to.equal('guard.invalid_input');
      const change = await running.request(`/api/hooks/${hook.id}`, {
        method: 'PATCH',
        json: { signature: 'ed25519' },
      });
      expect(change.status).to.equal(400);
    });

    it('rotation gives a new public key and signs with both keys during the grace period, then with the new one only', async () => {
      const hook = await createHook(running, {
        signature: 'ed25519',
        events: ['User.Created'],
        config: { url: receiver.url('/rotate') },
      });
      const res = await running.request(`/api/hooks/${hook.id}/signing-key`, { method: 'PATCH' });
      expect(res.status).to.equal(200);
      const rotated = await bodyOf(res);
      expect(rotated).to.not.have.property('signingKey');
      expect(rotated.publicKey)
        .to.match(/^whpk_/)
        .and.not.equal(hook.publicKey);

      await createUser(running, 'during_grace');
      const during = await eventually(() => receiver.requests('/rotate')[0], {
        what: 'a delivery in the grace period',
      });
      expect(String(during.headers['webhook-signature']).split(' ')).to.have.length(2);
      expect(verifiesWith(String(hook.publicKey), during), 'the old key still verifies').to.equal(true);
      expect(verifiesWith(rotated.publicKey, during), 'the new key verifies').to.equal(true);

      await withFakeClock(async (clock) => {
        clock.advance(3601 * 1000);
        await running.service.core.bus.publish([craftedEvent('User.Created', { data: { id: 'after-grace' } })]);
        const after = await eventually(() => receiver.requests('/rotate')[1], {
          what: 'a delivery after the grace period',
        });
        expect(String(after.headers['webhook-signature']).split(' ')).to.have.length(1);
        expect(verifiesWith(rotated.publicKey, after)).to.equal(true);
        expect(verifiesWith(String(hook.publicKey), after)).to.equal(false);
      });
    });

    it('signs test sends the same way', async () => {
      const hook = await createHook(running, {
        signature: 'ed25519',
        events: ['User.Created'],
        config: { url: receiver.url('/unused') },
      });
      const res = await running.request(`/api/hooks/${hook.id}/test`, {
        method: 'POST',
        json: { events: ['PostSignIn'], config: { url: receiver.url('/ed-test') } },
      });
      expect(res.status).to.equal(204);
      const request = receiver.requests('/ed-test')[0]!;
      expect(verifiesWith(String(hook.publicKey), request)).to.equal(true);
    });
  });
}
