import { passwordRecord } from '../../support/account.ts';
import { totpCode } from '../../support/mfa.ts';
import { ok, type Harness } from '../../support/management/harness.ts';
import type { EventCase } from '../../support/management/event-case.ts';
import { signedIn } from './account.cases.ts';

const PASSWORD = 'correct horse battery';

/** Offers both factors without prompting anyone, so that the other cases' sign-ins are not asked to enrol. */
const offerFactors = (h: Harness) =>
  ok(h.api('PATCH', '/sign-in-exp', { mfa: { factors: ['Totp', 'BackupCode'], policy: 'NoPrompt' } }));

export const accountMfaEventCases: EventCase[] = [
  {
    route: 'POST /my-account/mfa-verifications',
    title: 'a user adding an authenticator app publishes User.Data.Updated, never the secret',
    async arrange(h) {
      await offerFactors(h);
      const { me, auth, whole } = await signedIn(h);
      const headers = { ...auth, 'logto-verification-id': await passwordRecord(me, PASSWORD) };
      const { secret } = (await me('/api/my-account/mfa-verifications/totp-secret/generate', { method: 'POST' }))
        .body as { secret: string };
      const path = '/my-account/mfa-verifications';
      return {
        path,
        params: {},
        status: 204,
        headers,
        body: { type: 'Totp', secret, code: totpCode(secret) },
        expected: whole,
        failures: [
          {
            why: 'no verification record',
            path,
            body: { type: 'Totp', secret, code: totpCode(secret) },
            headers: auth,
            status: 401,
          },
          { why: 'a wrong code', path, body: { type: 'Totp', secret, code: totpCode(secret, 9) }, status: 400 },
          {
            why: 'not a base32 secret',
            path,
            body: { type: 'Totp', secret: 'not-base32', code: '123456' },
            status: 400,
          },
          { why: 'no code', path, body: { type: 'Totp', secret }, status: 400 },
          {
            why: 'backup codes without another factor',
            path,
            body: { type: 'BackupCode', codes: Array.from({ length: 10 }, (_, i) => `code${i}abcdefg`.slice(0, 12)) },
            status: 422,
          },
          { why: 'an unknown factor type', path, body: { type: 'Sms', phone: '1' }, status: 400 },
        ],
      };
    },
  },
  {
    route: 'DELETE /my-account/mfa-verifications/:verificationId',
    title: 'a user removing a factor publishes User.Data.Updated',
    async arrange(h) {
      await offerFactors(h);
      const { user, me, auth, whole } = await signedIn(h);
      const { id } = await ok(h.api('POST', `/users/${user.id}/mfa-verifications`, { type: 'Totp' }));
      const headers = { ...auth, 'logto-verification-id': await passwordRecord(me, PASSWORD) };
      const path = `/my-account/mfa-verifications/${id}`;
      return {
        path,
        params: { verificationId: id },
        status: 204,
        headers,
        expected: whole,
        failures: [
          { why: 'no verification record', path, headers: auth, status: 401 },
          { why: 'a factor the user does not have', path: '/my-account/mfa-verifications/nope', status: 404 },
        ],
      };
    },
  },
];
