import { expect } from 'chai';
import { codeFrom } from '../support/mailbox.ts';
import { json, startExperienceHarness, uniqueName, type ExperienceHarness } from '../support/experience.ts';

const REDIS_URL = process.env.TEST_REDIS_URL ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const THRESHOLD = 3;
const PASSWORD = 'Locked-Out-Pass-8';

for (const backend of ['embedded', 'redis'] as const) {
  describe(`Experience API: lockout on every verification (${backend})`, () => {
    let h: ExperienceHarness;

    before(async () => {
      h = await startExperienceHarness({
        LOCKOUT_THRESHOLD: String(THRESHOLD),
        LOCKOUT_SECONDS: '120',
        ...(backend === 'redis' ? { REDIS_URL } : {}),
      });
    });
    after(() => h.close());

    it('evaluates at most the threshold of 100 concurrent wrong codes, locks the account (even its right code and password), one Identifier.Lockout', async () => {
      const email = `${uniqueName('lock')}@example.com`;
      const user = await json(
        h.running.request('/api/users', { method: 'POST', json: { primaryEmail: email, password: PASSWORD } }),
      );
      const client = h.client();
      await client.open(h.app);
      await client.ok('PUT', '', { interactionEvent: 'SignIn' });
      const verificationId = await client.sendCode({ type: 'email', value: email }, 'SignIn');
      const code = codeFrom(await h.mailbox.waitFor(email));
      const wrong = code === '000000' ? '999999' : '000000';

      const answers = await Promise.all(
        Array.from({ length: 100 }, () =>
          client.api('POST', '/verification/verification-code/verify', {
            identifier: { type: 'email', value: email },
            verificationId,
            code: wrong,
          }),
        ),
      );
      const codes = answers.map((answer) => `${answer.status} ${answer.body.code}`);
      const evaluated = codes.filter((line) => line === '400 verification_code.code_mismatch').length;
      const locked = codes.filter((line) => line === '429 session.verification_blocked_too_many_attempts').length;
      expect(evaluated, 'wrong codes answered as such').to.be.within(1, THRESHOLD - 1);
      expect(evaluated + locked, codes.join(', ')).to.equal(100);

      const right = await client.api('POST', '/verification/verification-code/verify', {
        identifier: { type: 'email', value: email },
        verificationId,
        code,
      });
      expect(right.status).to.equal(429);
      expect(right.body.code).to.equal('session.verification_blocked_too_many_attempts');
      const password = await client.api('POST', '/verification/password', {
        identifier: { type: 'email', value: email },
        password: PASSWORD,
      });
      expect(password.status, 'one budget per account, whatever the secret').to.equal(429);

      const lockout = await h.delivery('Identifier.Lockout', (payload) => payload.value === email);
      expect(lockout).to.include({ type: 'email', value: email });
      const lockouts = h.published().filter((event) => event.event === 'Identifier.Lockout' && event.value === email);
      expect(lockouts).to.have.length(1);
      expect(h.published().some((event) => event.event === 'PostSignIn' && event.userId === user.id)).to.equal(false);
    });

    it('counts wrong passwords and wrong codes of one account together', async () => {
      const email = `${uniqueName('mixed')}@example.com`;
      const username = uniqueName('mixed');
      await h.running.request('/api/users', {
        method: 'POST',
        json: { username, primaryEmail: email, password: PASSWORD },
      });
      const client = h.client();
      await client.open(h.app);
      await client.ok('PUT', '', { interactionEvent: 'SignIn' });
      const badPassword = await client.api('POST', '/verification/password', {
        identifier: { type: 'username', value: username },
        password: 'Wrong-Pass-000',
      });
      expect(badPassword.body.code).to.equal('session.invalid_credentials');
      const verificationId = await client.sendCode({ type: 'email', value: email }, 'SignIn');
      const code = codeFrom(await h.mailbox.waitFor(email));
      const badCode = await client.api('POST', '/verification/verification-code/verify', {
        identifier: { type: 'email', value: email },
        verificationId,
        code: code === '000000' ? '999999' : '000000',
      });
      expect(badCode.body.code).to.equal('verification_code.code_mismatch');
      const third = await client.api('POST', '/verification/password', {
        identifier: { type: 'email', value: email },
        password: 'Wrong-Pass-001',
      });
      expect(third.status, 'the third failure of the account locks it').to.equal(429);
      const lockout = await h.delivery('Identifier.Lockout', (payload) => payload.value === email);
      expect(lockout.type).to.equal('email');
    });

    it("takes Logto's sentinelPolicy over the configured threshold while it is set", async () => {
      const username = uniqueName('sentinel');
      await h.running.request('/api/users', { method: 'POST', json: { username, password: PASSWORD } });
      const attempt = async (client: ReturnType<typeof h.client>) =>
        client.api('POST', '/verification/password', {
          identifier: { type: 'username', value: username },
          password: 'Wrong-Pass-002',
        });
      const client = h.client();
      await client.open(h.app);
      await client.ok('PUT', '', { interactionEvent: 'SignIn' });
      await h.signInExperience({ sentinelPolicy: { maxAttempts: 2, lockoutDuration: 1 } });
      try {
        expect((await json(h.running.request('/api/sign-in-exp'))).sentinelPolicy).to.deep.equal({
          maxAttempts: 2,
          lockoutDuration: 1,
        });
        expect((await attempt(client)).body.code).to.equal('session.invalid_credentials');
        const second = await attempt(client);
        expect(
          [second.status, second.body.code],
          `the second failure locks under maxAttempts 2 (the threshold is ${THRESHOLD})`,
        ).to.deep.equal([429, 'session.verification_blocked_too_many_attempts']);
      } finally {
        await h.signInExperience({ sentinelPolicy: {} });
      }
      const other = uniqueName('sentinel');
      await h.running.request('/api/users', { method: 'POST', json: { username: other, password: PASSWORD } });
      const fresh = h.client();
      await fresh.open(h.app);
      await fresh.ok('PUT', '', { interactionEvent: 'SignIn' });
      for (let failure = 1; failure < THRESHOLD; failure += 1) {
        const answer = await fresh.api('POST', '/verification/password', {
          identifier: { type: 'username', value: other },
          password: 'Wrong-Pass-003',
        });
        expect(answer.body.code, `failure ${failure} of ${THRESHOLD}: {} is the configured threshold again`).to.equal(
          'session.invalid_credentials',
        );
      }
    });
  });
}
