import { expect } from 'chai';
import { fixtures, ok } from '../../support/management/harness.ts';
import type { EventCase } from '../../support/management/event-case.ts';

const MISSING = 'no-such-user';

/** A user's second factors: every change publishes User.Data.Updated with the user, never a secret or a code. */
export const mfaEventCases: EventCase[] = [
  {
    route: 'POST /users/:userId/mfa-verifications',
    title: 'adding an authenticator publishes User.Data.Updated with the user, not the secret',
    async arrange(h) {
      const user = await fixtures(h).user();
      const other = await fixtures(h).user();
      await ok(h.api('POST', `/users/${other.id}/mfa-verifications`, { type: 'Totp' }));
      return {
        path: `/users/${user.id}/mfa-verifications`,
        params: { userId: user.id },
        status: 201,
        body: { type: 'Totp' },
        async expected(res) {
          expect(res.body.secret).to.be.a('string');
          const current = await ok(h.api('GET', `/users/${user.id}`));
          expect(JSON.stringify(current)).not.to.include(res.body.secret);
          return [{ event: 'User.Data.Updated', data: current }];
        },
        failures: [
          { why: 'unknown user', path: `/users/${MISSING}/mfa-verifications`, body: { type: 'Totp' }, status: 404 },
          {
            why: 'unknown factor type',
            path: `/users/${user.id}/mfa-verifications`,
            body: { type: 'Sms' },
            status: 400,
          },
          {
            why: 'not a base32 secret',
            path: `/users/${user.id}/mfa-verifications`,
            body: { type: 'Totp', secret: 'not base32!' },
            status: 400,
          },
          {
            why: 'backup codes alone',
            path: `/users/${user.id}/mfa-verifications`,
            body: { type: 'BackupCode' },
            status: 422,
          },
          {
            why: 'a second authenticator',
            path: `/users/${other.id}/mfa-verifications`,
            body: { type: 'Totp' },
            status: 422,
          },
        ],
      };
    },
  },
  {
    route: 'DELETE /users/:userId/mfa-verifications/:verificationId',
    title: 'removing a factor publishes User.Data.Updated with the user',
    async arrange(h) {
      const user = await fixtures(h).user();
      const { id } = await ok(h.api('POST', `/users/${user.id}/mfa-verifications`, { type: 'Totp' }));
      return {
        path: `/users/${user.id}/mfa-verifications/${id}`,
        params: { userId: user.id, verificationId: id },
        status: 204,
        async expected() {
          expect(await ok(h.api('GET', `/users/${user.id}/mfa-verifications`))).to.deep.equal([]);
          return [{ event: 'User.Data.Updated', data: await ok(h.api('GET', `/users/${user.id}`)) }];
        },
        failures: [
          { why: 'unknown factor', path: `/users/${user.id}/mfa-verifications/nope`, status: 404 },
          { why: "another user's factor", path: `/users/${MISSING}/mfa-verifications/${id}`, status: 404 },
        ],
      };
    },
  },
];
