import { SoftPasskey } from '../../support/webauthn.ts';
import { passwordRecord } from '../../support/account.ts';
import { ok, type Harness } from '../../support/management/harness.ts';
import type { EventCase } from '../../support/management/event-case.ts';
import { signedIn } from './account.cases.ts';

const PASSWORD = 'correct horse battery';

/** A signed-in user with a verified passkey registration record (WebAuthn offered, nobody prompted to enrol). */
async function withRegistration(h: Harness) {
  const member = await signedIn(h);
  await ok(h.api('PATCH', '/sign-in-exp', { mfa: { factors: ['WebAuthn'], policy: 'NoPrompt' } }));
  const started = await member.me('/api/verifications/web-authn/registration', { method: 'POST' });
  const record = started.body!.verificationRecordId as string;
  const payload = new SoftPasskey(h.running.baseUrl).register(
    started.body!.registrationOptions as { challenge: string; rp: { id: string } },
  );
  await member.me('/api/verifications/web-authn/registration/verify', {
    method: 'POST',
    json: { verificationRecordId: record, payload },
  });
  return { ...member, record, gate: await passwordRecord(member.me, PASSWORD) };
}

/** A signed-in user holding one passkey; answers its factor id. */
async function withPasskey(h: Harness) {
  const member = await withRegistration(h);
  await member.me('/api/my-account/mfa-verifications', {
    method: 'POST',
    json: { type: 'WebAuthn', newIdentifierVerificationRecordId: member.record },
    verification: member.gate,
  });
  const [factor] = (await member.me('/api/my-account/mfa-verifications')).body as unknown as Array<{ id: string }>;
  return { ...member, factorId: factor!.id };
}

export const accountPasskeyEventCases: EventCase[] = [
  {
    route: 'POST /my-account/mfa-verifications',
    title: 'adding a passkey publishes User.Data.Updated with the whole user, no key',
    async arrange(h) {
      const { auth, whole, record, gate } = await withRegistration(h);
      const body = { type: 'WebAuthn', newIdentifierVerificationRecordId: record, name: 'Laptop' };
      return {
        path: '/my-account/mfa-verifications',
        params: {},
        status: 204,
        headers: { ...auth, 'logto-verification-id': gate },
        body,
        expected: whole,
        failures: [
          { why: 'no identity verification', path: '/my-account/mfa-verifications', body, headers: auth, status: 401 },
          {
            why: 'unknown record',
            path: '/my-account/mfa-verifications',
            body: { ...body, newIdentifierVerificationRecordId: 'nope' },
            status: 400,
          },
          {
            why: 'unknown factor type',
            path: '/my-account/mfa-verifications',
            body: { ...body, type: 'Sms' },
            status: 400,
          },
        ],
      };
    },
  },
  {
    route: 'PATCH /my-account/mfa-verifications/:verificationId/name',
    title: 'renaming a passkey publishes User.Data.Updated',
    async arrange(h) {
      const { auth, whole, gate, factorId } = await withPasskey(h);
      const path = `/my-account/mfa-verifications/${factorId}/name`;
      return {
        path,
        params: { verificationId: factorId },
        status: 200,
        headers: { ...auth, 'logto-verification-id': gate },
        body: { name: 'Phone' },
        expected: whole,
        failures: [
          { why: 'no identity verification', path, body: { name: 'Phone' }, headers: auth, status: 401 },
          { why: 'an empty name', path, body: { name: ' ' }, status: 400 },
          {
            why: 'unknown factor',
            path: '/my-account/mfa-verifications/nope/name',
            body: { name: 'Phone' },
            status: 404,
          },
        ],
      };
    },
  },
  {
    route: 'DELETE /my-account/mfa-verifications/:verificationId',
    title: 'removing a passkey publishes User.Data.Updated',
    async arrange(h) {
      const { auth, whole, gate, factorId } = await withPasskey(h);
      return {
        path: `/my-account/mfa-verifications/${factorId}`,
        params: { verificationId: factorId },
        status: 204,
        headers: { ...auth, 'logto-verification-id': gate },
        expected: whole,
        failures: [
          {
            why: 'no identity verification',
            path: `/my-account/mfa-verifications/${factorId}`,
            headers: auth,
            status: 401,
          },
          { why: 'unknown factor', path: '/my-account/mfa-verifications/nope', status: 404 },
        ],
      };
    },
  },
];
