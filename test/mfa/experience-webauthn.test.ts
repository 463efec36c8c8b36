import { expect } from 'chai';
import { json, startExperienceHarness, type ExperienceClient, type ExperienceHarness } from '../support/experience.ts';
import { SoftPasskey } from '../support/webauthn.ts';
import { DEFAULT_MFA, identifiedByPassword, mfaPolicy, passwordUser } from '../support/mfa.ts';

/** Registers `passkey` for the identified account of `client` and binds it (stored at submit). */
async function enrolPasskey(client: ExperienceClient, passkey: SoftPasskey): Promise<void> {
  const { verificationId, registrationOptions } = await client.ok('POST', '/verification/web-authn/registration');
  await client.ok('POST', '/verification/web-authn/registration/verify', {
    verificationId,
    payload: passkey.register(registrationOptions),
  });
  expect((await client.api('POST', '/profile/mfa', { type: 'WebAuthn', verificationId })).status).to.equal(204);
}

describe('MFA at sign-in: passkeys (WebAuthn)', () => {
  let h: ExperienceHarness;
  let origin: string;

  before(async () => {
    h = await startExperienceHarness();
    origin = h.running.baseUrl;
  });
  afterEach(() => mfaPolicy(h, DEFAULT_MFA));
  after(() => h.close());

  it("mandatory policy: registers a passkey bound to BASE_URL's host, then asks for it at the next sign-in", async () => {
    await mfaPolicy(h, { factors: ['WebAuthn'], policy: 'Mandatory' });
    const alice = await passwordUser(h);
    const first = await identifiedByPassword(h, alice.username);
    const missing = await first.api('POST', '/submit');
    expect(missing.status).to.equal(422);
    expect(missing.body).to.deep.include({ code: 'user.missing_mfa', data: { availableFactors: ['WebAuthn'] } });

    const { verificationId, registrationOptions } = await first.ok('POST', '/verification/web-authn/registration');
    expect(registrationOptions.rp).to.deep.equal({ id: '127.0.0.1', name: new URL(origin).host });
    expect(registrationOptions.user.name).to.equal(alice.username);
    expect(registrationOptions.challenge).to.match(/^[\w-]{32,}$/);
    const passkey = new SoftPasskey(origin);
    const unverifiedBind = await first.api('POST', '/profile/mfa', { type: 'WebAuthn', verificationId });
    expect(unverifiedBind.status).to.equal(400);
    expect(unverifiedBind.body.code).to.equal('session.mfa.pending_info_not_found');
    const attestation = passkey.register(registrationOptions);
    await first.ok('POST', '/verification/web-authn/registration/verify', { verificationId, payload: attestation });
    const again = await first.api('POST', '/verification/web-authn/registration/verify', {
      verificationId,
      payload: attestation,
    });
    expect(again.status, 'a registration challenge is answered once').to.equal(400);
    expect(again.body.code).to.equal('session.mfa.pending_info_not_found');
    expect((await first.api('POST', '/profile/mfa', { type: 'WebAuthn', verificationId })).status).to.equal(204);
    expect((await first.submitForTokens()).claims()!.sub).to.equal(alice.id);

    const updated = await h.delivery('User.Data.Updated', (payload) => payload.data?.id === alice.id);
    expect(updated.interactionEvent).to.equal('SignIn');
    const listed = await json(h.running.request(`/api/users/${alice.id}/mfa-verifications`));
    expect(listed).to.have.length(1);
    expect(Object.keys(listed[0]).sort()).to.deep.equal(['agent', 'createdAt', 'id', 'type']);
    expect(listed[0]).to.include({ type: 'WebAuthn', agent: 'experience-tests/1.0' });

    const second = await identifiedByPassword(h, alice.username);
    const unverified = await second.api('POST', '/submit');
    expect(unverified.status).to.equal(403);
    expect(unverified.body).to.deep.include({
      code: 'session.mfa.require_mfa_verification',
      data: { availableFactors: ['WebAuthn'] },
    });
    const challenge = await second.ok('POST', '/verification/web-authn/authentication');
    expect(challenge.authenticationOptions.rpId).to.equal('127.0.0.1');
    expect(challenge.authenticationOptions.allowCredentials.map((c: { id: string }) => c.id)).to.deep.equal([
      passkey.credentialId,
    ]);
    await second.ok('POST', '/verification/web-authn/authentication/verify', {
      verificationId: challenge.verificationId,
      payload: passkey.assert(challenge.authenticationOptions),
    });
    expect((await second.submitForTokens()).claims()!.sub).to.equal(alice.id);
    const [used] = await json(h.running.request(`/api/users/${alice.id}/mfa-verifications`));
    expect(used.lastUsedAt).to.be.a('string');
    const stored = await h.running.service.core.store.collection('mfa_verifications').findOne({ userId: alice.id });
    expect(stored).to.include({ counter: 1, credentialId: passkey.credentialId });
  });

  it('refuses replayed, foreign, unknown and cloned assertions with 4xx and stable codes, and accepts one of two racing uses', async () => {
    await mfaPolicy(h, { factors: ['WebAuthn'], policy: 'UserControlled' });
    const bob = await passwordUser(h);
    const passkey = new SoftPasskey(origin);
    const enrolment = await identifiedByPassword(h, bob.username);
    await enrolPasskey(enrolment, passkey);
    await enrolment.submitForTokens();

    const client = await identifiedByPassword(h, bob.username);
    const verify = (verificationId: string, payload: unknown) =>
      client.api('POST', '/verification/web-authn/authentication/verify', { verificationId, payload });
    const first = await client.ok('POST', '/verification/web-authn/authentication');
    const assertion = passkey.assert(first.authenticationOptions);
    expect((await verify(first.verificationId, assertion)).status).to.equal(200);

    const replayed = await verify(first.verificationId, assertion);
    expect(replayed.status, 'the same assertion again').to.equal(400);
    expect(replayed.body.code).to.equal('session.mfa.pending_info_not_found');

    const second = await client.ok('POST', '/verification/web-authn/authentication');
    const replayedElsewhere = await verify(second.verificationId, assertion);
    expect(replayedElsewhere.status, 'an old assertion against a new challenge').to.equal(400);
    expect(replayedElsewhere.body.code).to.equal('session.mfa.webauthn_verification_failed');

    const failures = [
      ['another origin', (options: any) => passkey.assert(options, 'http://evil.example')],
      ['an unknown credential', (options: any) => new SoftPasskey(origin).assert(options)],
      ['another RP ID', (options: any) => passkey.assert({ ...options, rpId: 'evil.example' })],
      [
        'a counter that did not move forward',
        (options: any) => {
          passkey.counter = 0;
          return passkey.assert(options);
        },
      ],
      [
        'a signature of something else',
        (options: any) => {
          const payload = passkey.assert(options);
          return {
            ...payload,
            response: { ...payload.response, signature: passkey.assert(options).response.signature },
          };
        },
      ],
      [
        'garbage that is base64url',
        (options: any) => {
          const payload = passkey.assert(options);
          return { ...payload, response: { ...payload.response, authenticatorData: 'AAAA', clientDataJSON: 'e30' } };
        },
      ],
    ] as const;
    for (const [what, answer] of failures) {
      const { verificationId, authenticationOptions } = await client.ok(
        'POST',
        '/verification/web-authn/authentication',
      );
      const refused = await verify(verificationId, answer(authenticationOptions));
      expect(refused.status, what).to.equal(400);
      expect(refused.body.code, what).to.equal('session.mfa.webauthn_verification_failed');
    }
    passkey.counter += 10;

    const racing = await client.ok('POST', '/verification/web-authn/authentication');
    const raced = passkey.assert(racing.authenticationOptions);
    const answers = await Promise.all(Array.from({ length: 5 }, () => verify(racing.verificationId, raced)));
    expect(answers.map((answer) => answer.status).sort()).to.deep.equal([200, 400, 400, 400, 400]);
    expect((await client.submitForTokens()).claims()!.sub).to.equal(bob.id);
  });

  it('moves the signature counter forward once: of two sign-ins presenting the same counter value at once, one passes', async () => {
    await mfaPolicy(h, { factors: ['WebAuthn'], policy: 'UserControlled' });
    const dave = await passwordUser(h);
    const passkey = new SoftPasskey(origin);
    const enrolment = await identifiedByPassword(h, dave.username);
    await enrolPasskey(enrolment, passkey);
    await enrolment.submitForTokens();

    const [one, two] = await Promise.all([
      identifiedByPassword(h, dave.username),
      identifiedByPassword(h, dave.username),
    ]);
    const first = await one!.ok('POST', '/verification/web-authn/authentication');
    const second = await two!.ok('POST', '/verification/web-authn/authentication');
    const a = passkey.assert(first.authenticationOptions);
    passkey.counter -= 1;
    const b = passkey.assert(second.authenticationOptions);
    const answers = await Promise.all([
      one!.api('POST', '/verification/web-authn/authentication/verify', {
        verificationId: first.verificationId,
        payload: a,
      }),
      two!.api('POST', '/verification/web-authn/authentication/verify', {
        verificationId: second.verificationId,
        payload: b,
      }),
    ]);
    expect(answers.map((answer) => answer.status).sort()).to.deep.equal([200, 400]);
    expect(answers.find((answer) => answer.status === 400)!.body.code).to.equal(
      'session.mfa.webauthn_verification_failed',
    );
    const stored = await h.running.service.core.store.collection('mfa_verifications').findOne({ userId: dave.id });
    expect(stored).to.include({ counter: 1 });
  });

  it("accepts ceremonies from the account center's related origins, published at /.well-known/webauthn, and no other", async () => {
    const SHOP = 'http://localhost:5173';
    const setOrigins = async (webauthnRelatedOrigins: string[]) => {
      const res = await h.running.request('/api/account-center', { method: 'PATCH', json: { webauthnRelatedOrigins } });
      return { status: res.status, body: (await res.json()) as Record<string, any> };
    };
    const published = async () => {
      const res = await fetch(`${origin}/.well-known/webauthn`);
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^application\/json/);
      return ((await res.json()) as { origins: string[] }).origins;
    };
    expect(await published()).to.deep.equal([]);
    const saved = await setOrigins([SHOP, 'https://shop.example.com/', 'https://shop.example.com']);
    expect(saved.status).to.equal(200);
    expect(saved.body.webauthnRelatedOrigins).to.deep.equal([SHOP, 'https://shop.example.com']);
    expect(await published()).to.deep.equal([SHOP, 'https://shop.example.com']);

    await mfaPolicy(h, { factors: ['WebAuthn'], policy: 'UserControlled' });
    const erin = await passwordUser(h);
    // Registered from the related origin too.
    const passkey = new SoftPasskey(SHOP);
    const enrolment = await identifiedByPassword(h, erin.username);
    await enrolPasskey(enrolment, passkey);
    await enrolment.submitForTokens();

    const client = await identifiedByPassword(h, erin.username);
    const attempt = async (from: string) => {
      const { verificationId, authenticationOptions } = await client.ok(
        'POST',
        '/verification/web-authn/authentication',
      );
      return client.api('POST', '/verification/web-authn/authentication/verify', {
        verificationId,
        payload: passkey.assert(authenticationOptions, from),
      });
    };
    for (const unrelated of ['http://localhost:5174', 'https://evil.example.com']) {
      const refused = await attempt(unrelated);
      expect(refused.status, unrelated).to.equal(400);
      expect(refused.body.code).to.equal('session.mfa.webauthn_verification_failed');
    }
    expect((await attempt(origin)).status, 'the service itself').to.equal(200);
    expect((await attempt(SHOP)).status, 'a related origin').to.equal(200);

    expect((await setOrigins([])).body.webauthnRelatedOrigins).to.deep.equal([]);
    expect(await published()).to.deep.equal([]);
    const removed = await attempt(SHOP);
    expect(removed.status, 'an origin no longer related').to.equal(400);
    expect(removed.body.code).to.equal('session.mfa.webauthn_verification_failed');
  });

  it('refuses related origins that are not origins a browser runs WebAuthn on (400 guard.invalid_input)', async () => {
    await h.running.request('/api/account-center', {
      method: 'PATCH',
      json: { webauthnRelatedOrigins: ['https://kept.example.com'] },
    });
    for (const webauthnRelatedOrigins of [
      ['http://shop.example.com'],
      ['https://shop.example.com/path'],
      ['https://shop.example.com?x=1'],
      ['https://user@shop.example.com'],
      ['ftp://shop.example.com'],
      ['shop.example.com'],
      [''],
      [42],
      'https://shop.example.com',
      Array.from({ length: 51 }, (_, index) => `https://shop${index}.example.com`),
    ]) {
      const res = await h.running.request('/api/account-center', { method: 'PATCH', json: { webauthnRelatedOrigins } });
      expect(res.status, JSON.stringify(webauthnRelatedOrigins).slice(0, 60)).to.equal(400);
      expect(((await res.json()) as { code: string }).code).to.equal('guard.invalid_input');
    }
    const kept = (await json(h.running.request('/api/account-center'))) as { webauthnRelatedOrigins: string[] };
    expect(kept.webauthnRelatedOrigins).to.deep.equal(['https://kept.example.com']);
    await h.running.request('/api/account-center', { method: 'PATCH', json: { webauthnRelatedOrigins: [] } });
  });

  it('answers bad requests with 4xx: no passkey, not identified, malformed payloads, factor not offered', async () => {
    const carol = await passwordUser(h);
    const anonymous = h.client();
    await anonymous.open(h.app);
    await anonymous.ok('PUT', '', { interactionEvent: 'SignIn' });
    const notIdentified = await anonymous.api('POST', '/verification/web-authn/authentication');
    expect(notIdentified.status).to.equal(404);
    expect(notIdentified.body.code).to.equal('session.identifier_not_found');

    const client = await identifiedByPassword(h, carol.username);
    const none = await client.api('POST', '/verification/web-authn/authentication');
    expect(none.status).to.equal(400);
    expect(none.body.code).to.equal('session.mfa.webauthn_verification_not_found');
    const notOffered = await client.api('POST', '/verification/web-authn/registration');
    expect(notOffered.status).to.equal(400);
    expect(notOffered.body.code).to.equal('session.mfa.mfa_factor_not_enabled');
    const unknown = await client.api('POST', '/verification/web-authn/authentication/verify', {
      verificationId: 'nope',
      payload: new SoftPasskey(origin).assert({ challenge: 'x', rpId: '127.0.0.1' }),
    });
    expect(unknown.status).to.equal(404);
    expect(unknown.body.code).to.equal('session.verification_session_not_found');
    const valid = new SoftPasskey(origin).assert({ challenge: 'x', rpId: '127.0.0.1' });
    for (const payload of [
      {},
      { ...valid, type: 'password' },
      { ...valid, id: 'not base64!' },
      { ...valid, extra: 1 },
      { ...valid, response: { ...valid.response, signature: 'x'.repeat(5000) } },
    ]) {
      const answer = await client.api('POST', '/verification/web-authn/authentication/verify', {
        verificationId: 'nope',
        payload,
      });
      expect(answer.status, JSON.stringify(payload).slice(0, 80)).to.equal(400);
      expect(answer.body.code).to.equal('guard.invalid_input');
    }
  });
});
