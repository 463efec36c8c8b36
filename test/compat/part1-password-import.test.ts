import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { argon2d, argon2i, argon2id, bcrypt } from 'hash-wasm';
import { startService, type RunningService } from '../support/service.ts';
import { createApplication } from '../support/fixtures.ts';
import { ExperienceClient, REDIRECT } from '../support/experience.ts';
import { newId } from '../../lib/ids.ts';

const PASSWORD = 'Imported-Pass-42';
const salt = () => new Uint8Array(Buffer.from(newId(16)));
const argon2 = {
  password: PASSWORD,
  parallelism: 1,
  iterations: 2,
  memorySize: 512,
  hashLength: 32,
  outputType: 'encoded',
} as const;
const hex = (algorithm: string) => createHash(algorithm).update(PASSWORD).digest('hex');

/** Digests of PASSWORD as other systems store them, per Logto's `passwordAlgorithm`. */
const DIGESTS: Record<string, () => Promise<string>> = {
  Bcrypt: () => bcrypt({ password: PASSWORD, salt: salt(), costFactor: 4, outputType: 'encoded' }),
  SHA1: async () => hex('sha1'),
  SHA256: async () => hex('sha256').toUpperCase(),
  MD5: async () => hex('md5'),
  Argon2i: () => argon2i({ ...argon2, salt: salt() }),
  Argon2id: () => argon2id({ ...argon2, salt: salt() }),
  Argon2d: () => argon2d({ ...argon2, salt: salt() }),
};

/**
 * Logto's user import: `POST /api/users` with `passwordDigest` and `passwordAlgorithm` keeps another system's
 * digest, the user signs in with the old password, and the first successful sign-in replaces it by ours.
 */
describe('Logto compatibility: importing users with password digests', () => {
  let running: RunningService;
  let app: { id: string; secret?: string };
  const published: string[] = [];

  before(async () => {
    running = await startService();
    app = await createApplication(running, { type: 'Traditional', oidcClientMetadata: { redirectUris: [REDIRECT] } });
    running.service.core.bus.subscribe(async (events) => {
      published.push(...events.map((event) => JSON.stringify(event)));
    });
  });
  after(() => running.close());

  async function create(body: Record<string, unknown>) {
    const res = await running.request('/api/users', {
      method: 'POST',
      json: { username: `imported_${newId(8)}`, ...body },
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  }

  async function signIn(username: string, password: string) {
    const client = new ExperienceClient(running);
    await client.open(app);
    await client.ok('PUT', '', { interactionEvent: 'SignIn' });
    const verified = await client.api('POST', '/verification/password', {
      identifier: { type: 'username', value: username },
      password,
    });
    if (verified.status !== 200) return verified;
    await client.ok('POST', '/identification', { verificationId: verified.body.verificationId });
    const tokens = await client.submitForTokens();
    return { status: 200, body: { sub: tokens.claims()!.sub } };
  }

  const storedDigest = async (id: string) =>
    (await running.service.records.users.findWithSecrets({ id }))!.secrets.passwordDigest;

  for (const [algorithm, make] of Object.entries(DIGESTS)) {
    it(`${algorithm}: signs in with the old password through the Experience API, then holds our scrypt digest`, async () => {
      const digest = await make();
      const created = await create({ passwordDigest: digest, passwordAlgorithm: algorithm });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      expect(created.body.hasPassword).to.equal(true);
      expect(JSON.stringify(created.body)).not.to.include(digest.toLowerCase().slice(-20));
      expect(JSON.stringify(created.body)).not.to.match(/passwordDigest|passwordAlgorithm/);
      const { username, id } = created.body;

      const wrong = await signIn(username, 'Not-The-Pass-42');
      expect(wrong.status).to.equal(422);
      expect(wrong.body.code).to.equal('session.invalid_credentials');
      expect(await storedDigest(id), 'a failed attempt keeps the imported digest').to.match(/^imported\$/);

      expect((await signIn(username, PASSWORD)).body).to.deep.equal({ sub: id });
      expect(await storedDigest(id), 're-hashed on the first sign-in').to.match(/^scrypt\$/);
      expect((await signIn(username, PASSWORD)).body, 'and signs in with ours afterwards').to.deep.equal({ sub: id });
      const verify = await running.request(`/api/users/${id}/password/verify`, {
        method: 'POST',
        json: { password: PASSWORD },
      });
      expect(verify.status).to.equal(204);
      expect(published.filter((event) => event.includes(id)).join(), 'never in an event').not.to.match(
        /imported\$|scrypt\$/,
      );
    });
  }

  it('refuses digests it could not verify and incomplete or contradictory requests (400 guard.invalid_input)', async () => {
    const bcryptDigest = await DIGESTS.Bcrypt!();
    const cases: Array<[string, Record<string, unknown>]> = [
      ['digest without algorithm', { passwordDigest: hex('md5') }],
      ['algorithm without digest', { passwordAlgorithm: 'MD5' }],
      ['password and digest', { password: PASSWORD, passwordDigest: hex('md5'), passwordAlgorithm: 'MD5' }],
      ['an algorithm Logto names but this service lacks', { passwordDigest: hex('md5'), passwordAlgorithm: 'Legacy' }],
      ['a digest of another algorithm', { passwordDigest: hex('sha1'), passwordAlgorithm: 'SHA256' }],
      ['not hexadecimal', { passwordDigest: 'z'.repeat(32), passwordAlgorithm: 'MD5' }],
      [
        'a bcrypt cost that would stall sign-in',
        { passwordDigest: bcryptDigest.replace(/^\$2(.)\$04\$/, '$2$1$31$'), passwordAlgorithm: 'Bcrypt' },
      ],
      [
        'an Argon2 variant other than the one named',
        { passwordDigest: await DIGESTS.Argon2i!(), passwordAlgorithm: 'Argon2id' },
      ],
      [
        'Argon2 memory beyond the bound',
        {
          passwordDigest: (await DIGESTS.Argon2id!()).replace('m=512', 'm=4194304'),
          passwordAlgorithm: 'Argon2id',
        },
      ],
    ];
    for (const [why, body] of cases) {
      const res = await create(body);
      expect(res.status, why).to.equal(400);
      expect(res.body.code, why).to.equal('guard.invalid_input');
    }
  });
});
