import { expect } from 'chai';
import { json, uniqueName, type ExperienceClient } from '../support/experience.ts';
import { startFederation, type Federation } from '../support/connectors.ts';
import {
  DEFAULT_MFA,
  enrolTotp,
  identifiedByPassword,
  mfaPolicy,
  passwordUser,
  PASSWORD,
  totpCode,
} from '../support/mfa.ts';

const REDIS_URL = process.env.TEST_REDIS_URL ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * What an experience records for one account (second-factor proofs, new factors, a skipped enrolment, a sign-in
 * through a connector) never serves another: switching the interaction event, or identifying another account, drops
 * it. Each attack signs in as the attacker's own account first, then switches Register → SignIn and identifies the
 * victim with the victim's password (known to the attacker: the second factor is what should stop them).
 */
for (const backend of ['embedded', 'redis'] as const) {
  describe(`Experience API: what an interaction proved belongs to the account it was proved for (${backend})`, () => {
    let f: Federation;

    before(async () => {
      f = await startFederation({ REDIS_URL: backend === 'redis' ? REDIS_URL : undefined });
      expect(f.h.running.service.core.kv.kind).to.equal(backend === 'redis' ? 'redis' : 'sqlite');
    });
    afterEach(() => mfaPolicy(f.h, DEFAULT_MFA));
    after(() => f.close());

    /** Switches to registration and back, then proves the victim's password and identifies the victim. */
    async function switchToVictim(client: ExperienceClient, victim: { username: string }): Promise<void> {
      await client.ok('PUT', '/interaction-event', { interactionEvent: 'Register' });
      await client.ok('PUT', '/interaction-event', { interactionEvent: 'SignIn' });
      const { verificationId } = await client.ok('POST', '/verification/password', {
        identifier: { type: 'username', value: victim.username },
        password: PASSWORD,
      });
      await client.ok('POST', '/identification', { verificationId });
    }

    const factorsOf = async (userId: string) => json(f.h.running.request(`/api/users/${userId}/mfa-verifications`));

    it("a second factor proved for one account does not pass another's (403 session.mfa.require_mfa_verification)", async () => {
      const attacker = await passwordUser(f.h);
      const attackerSecret = await enrolTotp(f.h, attacker.id);
      const victim = await passwordUser(f.h);
      await enrolTotp(f.h, victim.id);

      const client = await identifiedByPassword(f.h, attacker.username);
      await client.ok('POST', '/verification/totp/verify', { code: totpCode(attackerSecret) });
      await switchToVictim(client, victim);
      const submitted = await client.api('POST', '/submit');
      expect(submitted.status, JSON.stringify(submitted.body)).to.equal(403);
      expect(submitted.body).to.deep.include({
        code: 'session.mfa.require_mfa_verification',
        data: { availableFactors: ['Totp'] },
      });
      expect(
        (await client.api('GET', '/interaction')).body.userId,
        'the victim is identified, and still has to prove a factor',
      ).to.equal(victim.id);
    });

    it('backup codes made for one account are never stored on another, nor replace its codes', async () => {
      await mfaPolicy(f.h, { factors: ['Totp', 'BackupCode'], policy: 'UserControlled' });
      const attacker = await passwordUser(f.h);
      const attackerSecret = await enrolTotp(f.h, attacker.id);
      const victim = await passwordUser(f.h);
      const victimSecret = await enrolTotp(f.h, victim.id);
      const victimCodes = (
        await json(
          f.h.running.request(`/api/users/${victim.id}/mfa-verifications`, {
            method: 'POST',
            json: { type: 'BackupCode' },
          }),
        )
      ).codes as string[];

      const client = await identifiedByPassword(f.h, attacker.username);
      await client.ok('POST', '/verification/totp/verify', { code: totpCode(attackerSecret) });
      const generated = await client.ok('POST', '/verification/backup-code/generate');
      await client.ok('POST', '/profile/mfa', { type: 'BackupCode', verificationId: generated.verificationId });
      await switchToVictim(client, victim);
      const bindAgain = await client.api('POST', '/profile/mfa', {
        type: 'BackupCode',
        verificationId: generated.verificationId,
      });
      expect(bindAgain.status, "the attacker's codes are no verification of the victim's").to.equal(404);
      expect(bindAgain.body.code).to.equal('session.verification_session_not_found');
      expect((await client.api('POST', '/submit')).status).to.equal(403);
      // Even after the victim's own factor is proved, the codes bound for the attacker's account are not stored on the victim.
      await client.ok('POST', '/verification/totp/verify', { code: totpCode(victimSecret) });
      expect((await client.submitForTokens()).claims()!.sub).to.equal(victim.id);
      const backup = (await factorsOf(victim.id)).find((item: { type: string }) => item.type === 'BackupCode');
      expect(backup.remainCodes, 'the victim keeps the set they had').to.equal(10);

      const next = await identifiedByPassword(f.h, victim.username);
      const attackersCode = await next.api('POST', '/verification/backup-code/verify', { code: generated.codes[0] });
      expect(attackersCode.status).to.equal(400);
      expect(attackersCode.body.code).to.equal('session.mfa.invalid_backup_code');
      await next.ok('POST', '/verification/backup-code/verify', { code: victimCodes[0] });
      expect((await next.submitForTokens()).claims()!.sub).to.equal(victim.id);
    });

    it("an enterprise SSO sign-in of one account neither skips another's second factor nor links to it", async () => {
      const domain = `corp-${Math.random().toString(36).slice(2, 10)}.example`;
      const created = await f.h.running.request('/api/sso-connectors', {
        method: 'POST',
        json: {
          providerName: 'OIDC',
          connectorName: uniqueName('Corp'),
          domains: [domain],
          config: { clientId: f.client.id, clientSecret: f.client.secret, issuer: `${f.upstream.baseUrl}/oidc` },
        },
      });
      expect(created.status).to.equal(201);
      const connector = await json(created);
      const employee = await f.upstreamUser(`${uniqueName('emp')}@${domain}`);
      const victim = await passwordUser(f.h);
      await enrolTotp(f.h, victim.id);

      // The attacker's own account has the employee's email, so the first sign-in through the connector links to it.
      const attacker = await json(
        f.h.running.request('/api/users', { method: 'POST', json: { primaryEmail: employee.email } }),
      );

      /** A sign-in through the connector as the employee, identified. */
      async function ssoSignIn(): Promise<ExperienceClient> {
        const { client, verificationId } = await f.verifiedThrough('sso', connector.id, employee);
        await client.ok('POST', '/identification', { verificationId });
        return client;
      }

      const client = await ssoSignIn();
      await switchToVictim(client, victim);
      const submitted = await client.api('POST', '/submit');
      expect(submitted.status, JSON.stringify(submitted.body)).to.equal(403);
      expect(submitted.body.code).to.equal('session.mfa.require_mfa_verification');
      const stored = await json(f.h.running.request(`/api/users/${victim.id}?includeSsoIdentities=true`));
      expect(stored.ssoIdentities, 'nothing linked to the victim').to.deep.equal([]);
      expect(
        (await (await ssoSignIn()).submitForTokens()).claims()!.sub,
        'the identity still signs in its own account',
      ).to.equal(attacker.id);
    });

    it('submit refuses a record naming another account for a proof (409 session.identity_conflict)', async () => {
      const attacker = await passwordUser(f.h);
      const victim = await passwordUser(f.h);
      await enrolTotp(f.h, victim.id);
      const client = f.h.client();
      const uid = await client.open(f.h.app);
      await client.ok('PUT', '', { interactionEvent: 'SignIn' });
      const { verificationId } = await client.ok('POST', '/verification/password', {
        identifier: { type: 'username', value: victim.username },
        password: PASSWORD,
      });
      await client.ok('POST', '/identification', { verificationId });
      // A record as only a fault could leave it: a proof made for the attacker's account beside the victim identified.
      const { kv } = f.h.running.service.core;
      const record = JSON.parse((await kv.get(`experience:${uid}`))!);
      record.mfaVerifications = [{ id: 'forged-proof', type: 'Totp', userId: attacker.id, verified: true }];
      await kv.set(`experience:${uid}`, JSON.stringify(record), 60_000);
      const submitted = await client.api('POST', '/submit');
      expect(submitted.status, JSON.stringify(submitted.body)).to.equal(409);
      expect(submitted.body.code).to.equal('session.identity_conflict');
    });

    it("control: switching Register → SignIn for one's own account still signs in, second factor included", async () => {
      const owner = await passwordUser(f.h);
      const secret = await enrolTotp(f.h, owner.id);
      const client = f.h.client();
      await client.open(f.h.app);
      await client.ok('PUT', '', { interactionEvent: 'Register' });
      const { verificationId } = await client.ok('POST', '/verification/password', {
        identifier: { type: 'username', value: owner.username },
        password: PASSWORD,
      });
      await client.ok('PUT', '/interaction-event', { interactionEvent: 'SignIn' });
      await client.ok('POST', '/identification', { verificationId });
      expect((await client.api('POST', '/submit')).status).to.equal(403);
      await client.ok('POST', '/verification/totp/verify', { code: totpCode(secret) });
      expect((await client.submitForTokens()).claims()!.sub).to.equal(owner.id);
    });

    it('control: a new account binds its authenticator app and backup codes during registration', async () => {
      await mfaPolicy(f.h, { factors: ['Totp', 'BackupCode'], policy: 'Mandatory' });
      const username = uniqueName('newbie');
      const client = f.h.client();
      await client.open(f.h.app);
      await client.ok('PUT', '', { interactionEvent: 'Register' });
      await client.ok('POST', '/profile', { type: 'username', value: username });
      await client.ok('POST', '/profile', { type: 'password', value: PASSWORD });
      expect((await client.api('POST', '/identification', {})).status).to.equal(201);
      const { verificationId, secret } = await client.ok('POST', '/verification/totp/secret');
      await client.ok('POST', '/verification/totp/verify', { verificationId, code: totpCode(secret) });
      await client.ok('POST', '/profile/mfa', { type: 'Totp', verificationId });
      const codes = await client.ok('POST', '/verification/backup-code/generate');
      await client.ok('POST', '/profile/mfa', { type: 'BackupCode', verificationId: codes.verificationId });
      const userId = (await client.submitForTokens()).claims()!.sub;
      const types = (await factorsOf(userId)).map((item: { type: string }) => item.type).sort();
      expect(types).to.deep.equal(['BackupCode', 'Totp']);
    });
  });
}
