import { expect } from 'chai';
import { API_CALLBACK, paramsOf, startFederation, type Federation, type UpstreamUser } from '../support/connectors.ts';

describe('Experience API: callbacks that do not belong to the sign-in are refused with 4xx codes', () => {
  let f: Federation;
  let connectorId: string;
  let person: UpstreamUser;

  before(async () => {
    f = await startFederation();
    connectorId = (await f.socialConnector('oidc', 'upstream')).id;
    person = await f.upstreamUser();
  });
  after(() => f.close());

  async function started() {
    const client = f.h.client();
    await client.open(f.h.app);
    await client.ok('PUT', '', { interactionEvent: 'SignIn' });
    const answer = await client.ok('POST', `/verification/social/${connectorId}/authorization-uri`, {
      state: 'client-state-abcd',
      redirectUri: API_CALLBACK,
    });
    return { client, ...(answer as { authorizationUri: string; verificationId: string }) };
  }

  const verify = (
    client: Awaited<ReturnType<typeof started>>['client'],
    verificationId: string,
    connectorData: Record<string, string>,
  ) => client.api('POST', `/verification/social/${connectorId}/verify`, { verificationId, connectorData });

  it('a state other than the one sent: 401 connector.authorization_failed', async () => {
    const { client, authorizationUri, verificationId } = await started();
    const callback = paramsOf(await f.signInUpstream(authorizationUri, person));
    const answer = await verify(client, verificationId, { ...callback, state: 'someone-elses-state' });
    expect(answer.status).to.equal(401);
    expect(answer.body.code).to.equal('connector.authorization_failed');
  });

  it('an ID token with another nonce than the one sent: 401 connector.social_id_token_invalid', async () => {
    const { client, authorizationUri, verificationId } = await started();
    const tampered = new URL(authorizationUri);
    tampered.searchParams.set('nonce', 'a-nonce-this-sign-in-never-sent');
    const callback = paramsOf(await f.signInUpstream(tampered.href, person));
    const answer = await verify(client, verificationId, callback);
    expect(answer.status, JSON.stringify(answer.body)).to.equal(401);
    expect(answer.body.code).to.equal('connector.social_id_token_invalid');
  });

  it('a wrong code, a replayed callback and a code redeemed before: 401, never a 500', async () => {
    const first = await started();
    const wrong = await verify(first.client, first.verificationId, {
      code: 'not-a-code',
      state: 'client-state-abcd',
      iss: `${f.upstream.baseUrl}/oidc`,
    });
    expect(wrong.status, JSON.stringify(wrong.body)).to.equal(401);
    expect(wrong.body.code).to.equal('connector.social_auth_code_invalid');

    const callback = paramsOf(await f.signInUpstream(first.authorizationUri, person));
    expect((await verify(first.client, first.verificationId, callback)).status).to.equal(200);
    const replayed = await verify(first.client, first.verificationId, callback);
    expect(replayed.status).to.equal(401);
    expect(replayed.body.code).to.equal('connector.authorization_failed');

    // The same code in another sign-in (same client-chosen state): the provider refuses it.
    const second = await started();
    const reused = await verify(second.client, second.verificationId, callback);
    expect(reused.status).to.equal(401);
    expect(reused.body.code).to.equal('connector.social_auth_code_invalid');
  });

  it('a callback without the issuer the provider always sends (RFC 9207): 400 connector.invalid_response', async () => {
    const { client, authorizationUri, verificationId } = await started();
    const { iss: _iss, ...callback } = paramsOf(await f.signInUpstream(authorizationUri, person));
    const answer = await verify(client, verificationId, callback);
    expect(answer.status).to.equal(400);
    expect(answer.body.code).to.equal('connector.invalid_response');
  });

  it('the provider refusing the user (error=access_denied): 401 connector.authorization_failed', async () => {
    const { client, verificationId } = await started();
    const answer = await verify(client, verificationId, { error: 'access_denied', state: 'client-state-abcd' });
    expect(answer.status).to.equal(401);
    expect(answer.body).to.deep.include({ code: 'connector.authorization_failed' });
  });

  it('unknown connectors and verifications: 404', async () => {
    const { client, verificationId } = await started();
    const unknown = await client.api('POST', '/verification/social/no-such-connector/authorization-uri', {
      state: 'client-state-abcd',
      redirectUri: API_CALLBACK,
    });
    expect(unknown.status).to.equal(404);
    expect(unknown.body.code).to.equal('entity.not_exists_with_id');
    const unknownSso = await client.api('POST', '/verification/sso/no-such-connector/authorization-uri', {
      state: 'client-state-abcd',
      redirectUri: API_CALLBACK,
    });
    expect(unknownSso.status).to.equal(404);
    const otherVerification = await verify(client, 'no-such-verification', { code: 'x', state: 'client-state-abcd' });
    expect(otherVerification.status).to.equal(404);
    expect(otherVerification.body.code).to.equal('session.verification_session_not_found');
    const unverified = await client.api('POST', '/identification', { verificationId });
    expect(unverified.status).to.equal(400);
    expect(unverified.body.code).to.equal('session.verification_failed');
    const malformed = await client.api('POST', `/verification/social/${connectorId}/verify`, {
      verificationId,
      connectorData: { code: 42 },
    });
    expect(malformed.status).to.equal(400);
    expect(malformed.body.code).to.equal('guard.invalid_input');
  });

  it('a suspended account (422 user.suspended), and no account while registration is off (403 auth.forbidden)', async () => {
    const suspended = await f.upstreamUser();
    const register = await started();
    await register.client.ok('POST', `/verification/social/${connectorId}/verify`, {
      verificationId: register.verificationId,
      connectorData: paramsOf(await f.signInUpstream(register.authorizationUri, suspended)),
    });
    await register.client.ok('PUT', '/interaction-event', { interactionEvent: 'Register' });
    const created = await register.client.api('POST', '/identification', { verificationId: register.verificationId });
    expect(created.status).to.equal(201);
    const userId = (await register.client.submitForTokens()).claims()!.sub;
    expect(
      (await f.h.running.request(`/api/users/${userId}/is-suspended`, { method: 'PATCH', json: { isSuspended: true } }))
        .status,
    ).to.equal(200);

    const again = await started();
    await again.client.ok('POST', `/verification/social/${connectorId}/verify`, {
      verificationId: again.verificationId,
      connectorData: paramsOf(await f.signInUpstream(again.authorizationUri, suspended)),
    });
    const refused = await again.client.api('POST', '/identification', { verificationId: again.verificationId });
    expect(refused.status).to.equal(422);
    expect(refused.body.code).to.equal('user.suspended');

    const stranger = await f.upstreamUser();
    await f.h.signInExperience({ signInMode: 'SignIn' });
    try {
      const closed = await started();
      await closed.client.ok('POST', `/verification/social/${connectorId}/verify`, {
        verificationId: closed.verificationId,
        connectorData: paramsOf(await f.signInUpstream(closed.authorizationUri, stranger)),
      });
      expect(
        (await closed.client.api('POST', '/identification', { verificationId: closed.verificationId })).status,
      ).to.equal(404);
      const register = await closed.client.api('PUT', '/interaction-event', { interactionEvent: 'Register' });
      expect(register.status).to.equal(403);
      expect(register.body.code).to.equal('auth.forbidden');
    } finally {
      await f.h.signInExperience({ signInMode: 'SignInAndRegister' });
    }
  });
});
