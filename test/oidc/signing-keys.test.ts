import { expect } from 'chai';
import { calculateJwkThumbprint, createLocalJWKSet, exportJWK, generateKeyPair, jwtVerify } from 'jose';
import { pino } from 'pino';
import request from 'supertest';
import { createIdentityService } from '../../app/index.ts';
import { createMemoryDocumentStore } from '../../adapters/memory/documents.ts';

const quiet = { logger: pino({ level: 'silent' }), print: () => {} };
async function publicKeys(service: Awaited<ReturnType<typeof createIdentityService>>): Promise<unknown> {
  const res = await request(service.app.callback()).get('/oidc/jwks');
  expect(res.status).to.equal(200);
  return res.body;
}

/** A service signing with the configured key, and a token it issued to its bootstrap admin for the management API. */
async function serviceWithKey(jwk: object) {
  const service = await createIdentityService({
    env: {
      STORAGE: 'memory',
      BASE_URL: 'http://127.0.0.1:1',
      SIGNING_KEYS: JSON.stringify({ keys: [jwk] }),
      ADMIN_CLIENT_ID: 'configured-admin',
      ADMIN_CLIENT_SECRET: 'configured-admin-secret-0123',
    },
    ...quiet,
  });
  const token = await request(service.app.callback())
    .post('/oidc/token')
    .auth(service.adminClientId, 'configured-admin-secret-0123')
    .type('form')
    .send({ grant_type: 'client_credentials', resource: 'http://127.0.0.1:1/api', scope: 'all' });
  return { service, token };
}

describe('signing keys', () => {
  it('are generated once and shared by every instance on the same store', async () => {
    const documents = createMemoryDocumentStore();
    const env = { STORAGE: 'memory', BASE_URL: 'http://127.0.0.1:1' };
    const first = await createIdentityService({ env, stores: { documents }, ...quiet });
    const second = await createIdentityService({ env, stores: { documents }, ...quiet });
    try {
      expect(await publicKeys(first)).to.deep.equal(await publicKeys(second));
    } finally {
      await first.close();
      await second.close();
      await documents.close();
    }
  });

  it('come from SIGNING_KEYS when configured, and only their public halves are served', async () => {
    const { privateKey } = await generateKeyPair('EdDSA', { extractable: true });
    const jwk = { ...(await exportJWK(privateKey)), kid: 'configured-ed25519', alg: 'EdDSA', use: 'sig' };
    const { service, token } = await serviceWithKey(jwk);
    try {
      const served = (await publicKeys(service)) as { keys: Array<Record<string, unknown>> };
      expect(served.keys.map((key) => key.kid)).to.deep.equal(['configured-ed25519']);
      expect(served.keys[0]).not.to.have.property('d');
      expect(token.status).to.equal(200);
      const header = JSON.parse(Buffer.from(String(token.body.access_token).split('.')[0]!, 'base64url').toString());
      expect(header).to.include({ alg: 'EdDSA', kid: 'configured-ed25519', typ: 'at+jwt' });
      const { payload } = await jwtVerify(String(token.body.access_token), createLocalJWKSet(served as never));
      expect(payload).to.include({ aud: 'http://127.0.0.1:1/api', scope: 'all' });
    } finally {
      await service.close();
    }
  });

  it('without a kid are named by their RFC 7638 thumbprint, in the tokens and the served keys alike', async () => {
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    const jwk = await exportJWK(privateKey);
    const { service, token } = await serviceWithKey(jwk);
    try {
      const kid = await calculateJwkThumbprint(jwk);
      const served = (await publicKeys(service)) as { keys: Array<Record<string, unknown>> };
      expect(served.keys.map((key) => key.kid)).to.deep.equal([kid]);
      expect(token.status).to.equal(200);
      const accessToken = String(token.body.access_token);
      const { protectedHeader } = await jwtVerify(accessToken, createLocalJWKSet(served as never));
      expect(protectedHeader).to.include({ alg: 'ES256', kid });
      // The management API verifies the token with the same keys.
      const listed = await request(service.app.callback())
        .get('/api/applications')
        .auth(accessToken, { type: 'bearer' });
      expect(listed.status).to.equal(200);
    } finally {
      await service.close();
    }
  });

  it('reject a malformed SIGNING_KEYS value at start-up', async () => {
    let error: unknown;
    try {
      await createIdentityService({ env: { STORAGE: 'memory', SIGNING_KEYS: '{"keys":[{"kty":"RSA"}]}' }, ...quiet });
    } catch (caught) {
      error = caught;
    }
    expect(String(error)).to.match(/SIGNING_KEYS/);
  });
});
