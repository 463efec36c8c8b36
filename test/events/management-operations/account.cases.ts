import { createUser } from '../../support/fixtures.ts';
import { randomInt } from 'node:crypto';
import { accountClient, asUser, codeRecord, emailRecord, passwordRecord } from '../../support/account.ts';
import { ok, unique, type Harness } from '../../support/management/harness.ts';
import type { EventCase } from '../../support/management/event-case.ts';

const PASSWORD = 'correct horse battery';

/** A user signed in through the authorization-code flow, with their token's headers and a way to call as them. */
export async function signedIn(h: Harness, fields: Record<string, unknown> = {}) {
  const username = unique('member');
  const user = await createUser(h.running, [], { username, ...fields }, PASSWORD);
  const token = await (await accountClient(h.running)).signIn(username, PASSWORD);
  const me = asUser(h.running, token);
  const auth = { authorization: `Bearer ${token}` };
  const whole = async () => [
    { event: 'User.Data.Updated' as const, data: await ok(h.api('GET', `/users/${user.id}`)) },
  ];
  return { user, me, auth, whole };
}

export const accountEventCases: EventCase[] = [
  {
    route: 'PATCH /my-account',
    title: 'a user renaming themselves publishes User.Data.Updated with the whole user',
    async arrange(h) {
      const { auth, whole } = await signedIn(h);
      return {
        path: '/my-account',
        params: {},
        status: 200,
        headers: auth,
        body: { name: 'Renamed', avatar: 'https://cdn.example.com/a.png' },
        expected: whole,
        failures: [
          { why: 'unknown field', path: '/my-account', body: { nickname: 'x' }, status: 400 },
          {
            why: 'customData is Off in the account center',
            path: '/my-account',
            body: { customData: { plan: 'pro' } },
            status: 403,
          },
          {
            why: 'username change without a verification record',
            path: '/my-account',
            body: { username: unique('renamed') },
            status: 401,
          },
          { why: 'a management token', path: '/my-account', body: { name: 'x' }, headers: {}, status: 401 },
        ],
      };
    },
  },
  {
    route: 'PATCH /my-account',
    title: 'a change that leaves every field as it was publishes nothing',
    async arrange(h) {
      const { auth } = await signedIn(h, { name: 'Same' });
      return {
        path: '/my-account',
        params: {},
        status: 200,
        headers: auth,
        body: { name: 'Same' },
        expected: () => [],
        failures: [],
      };
    },
  },
  {
    route: 'PATCH /my-account/profile',
    title: 'a profile change publishes User.Data.Updated with the whole user',
    async arrange(h) {
      const { auth, whole } = await signedIn(h, { profile: { nickname: 'Al' } });
      return {
        path: '/my-account/profile',
        params: {},
        status: 200,
        headers: auth,
        body: { givenName: 'Alice', locale: 'en' },
        expected: whole,
        failures: [
          { why: 'unknown profile key', path: '/my-account/profile', body: { shoeSize: '42' }, status: 400 },
          { why: 'nothing to change', path: '/my-account/profile', body: {}, status: 422 },
          { why: 'malformed JSON', path: '/my-account/profile', raw: '{"givenName":', status: 400 },
        ],
      };
    },
  },
  {
    route: 'POST /my-account/password',
    title: 'a password change behind the gate publishes User.Data.Updated, without any secret',
    async arrange(h) {
      const { me, auth, whole } = await signedIn(h);
      const record = await passwordRecord(me, PASSWORD);
      return {
        path: '/my-account/password',
        params: {},
        status: 204,
        headers: { ...auth, 'logto-verification-id': record },
        body: { password: 'a new and long passphrase' },
        expected: whole,
        failures: [
          {
            why: 'no verification record',
            path: '/my-account/password',
            body: { password: 'a new and long passphrase' },
            headers: auth,
            status: 401,
          },
          { why: 'password below the policy', path: '/my-account/password', body: { password: 'short' }, status: 422 },
          { why: 'password of the wrong type', path: '/my-account/password', body: { password: 42 }, status: 400 },
        ],
      };
    },
  },
  {
    route: 'POST /my-account/primary-email',
    title: 'a new primary email proven by a code publishes User.Data.Updated',
    async arrange(h) {
      const { me, auth, whole } = await signedIn(h);
      const identity = await passwordRecord(me, PASSWORD);
      const email = `${unique('new')}@example.com`;
      const proof = await emailRecord(me, h.mailbox, email);
      const headers = { ...auth, 'logto-verification-id': identity };
      return {
        path: '/my-account/primary-email',
        params: {},
        status: 204,
        headers,
        body: { email, newIdentifierVerificationRecordId: proof },
        expected: whole,
        failures: [
          {
            why: 'no identity verification',
            path: '/my-account/primary-email',
            body: { email, newIdentifierVerificationRecordId: proof },
            headers: auth,
            status: 401,
          },
          {
            why: 'the record proves another address',
            path: '/my-account/primary-email',
            body: { email: `other.${email}`, newIdentifierVerificationRecordId: proof },
            status: 400,
          },
          {
            why: 'unknown record',
            path: '/my-account/primary-email',
            body: { email, newIdentifierVerificationRecordId: 'nope' },
            status: 400,
          },
          {
            why: 'not an email address',
            path: '/my-account/primary-email',
            body: { email: 'nope', newIdentifierVerificationRecordId: proof },
            status: 400,
          },
        ],
      };
    },
  },
  {
    route: 'DELETE /my-account/primary-email',
    title: 'removing the primary email publishes User.Data.Updated',
    async arrange(h) {
      const { me, auth, whole } = await signedIn(h, { primaryEmail: `${unique('gone')}@example.com` });
      const identity = await passwordRecord(me, PASSWORD);
      return {
        path: '/my-account/primary-email',
        params: {},
        status: 204,
        headers: { ...auth, 'logto-verification-id': identity },
        expected: whole,
        failures: [
          { why: 'no identity verification', path: '/my-account/primary-email', headers: auth, status: 401 },
          {
            why: 'an unknown verification record',
            path: '/my-account/primary-email',
            headers: { ...auth, 'logto-verification-id': 'nope' },
            status: 401,
          },
        ],
      };
    },
  },
  {
    route: 'POST /my-account/primary-phone',
    title: 'a new primary phone proven by a texted code publishes User.Data.Updated',
    async arrange(h) {
      const { me, auth, whole } = await signedIn(h);
      const identity = await passwordRecord(me, PASSWORD);
      const phone = `1555${String(randomInt(0, 10_000_000)).padStart(7, '0')}`;
      const proof = await codeRecord(me, { type: 'phone', value: phone }, () => h.smsCode(phone));
      return {
        path: '/my-account/primary-phone',
        params: {},
        status: 204,
        headers: { ...auth, 'logto-verification-id': identity },
        body: { phone, newIdentifierVerificationRecordId: proof },
        expected: whole,
        failures: [
          {
            why: 'not a phone number',
            path: '/my-account/primary-phone',
            body: { phone: '+1 555', newIdentifierVerificationRecordId: proof },
            status: 400,
          },
          {
            why: 'the record proves another number',
            path: '/my-account/primary-phone',
            body: { phone: '15550000000', newIdentifierVerificationRecordId: proof },
            status: 400,
          },
          {
            why: 'no identity verification',
            path: '/my-account/primary-phone',
            body: { phone, newIdentifierVerificationRecordId: proof },
            headers: auth,
            status: 401,
          },
        ],
      };
    },
  },
  {
    route: 'DELETE /my-account/primary-phone',
    title: 'removing the primary phone publishes User.Data.Updated',
    async arrange(h) {
      const { me, auth, whole } = await signedIn(h, { primaryPhone: '15550123' });
      const identity = await passwordRecord(me, PASSWORD);
      return {
        path: '/my-account/primary-phone',
        params: {},
        status: 204,
        headers: { ...auth, 'logto-verification-id': identity },
        expected: whole,
        failures: [{ why: 'no identity verification', path: '/my-account/primary-phone', headers: auth, status: 401 }],
      };
    },
  },
];
