import { Browser } from '../../support/browser.ts';
import { createApplication } from '../../support/fixtures.ts';
import { passwordRecord } from '../../support/account.ts';
import { ok, unique, type Harness } from '../../support/management/harness.ts';
import type { EventCase } from '../../support/management/event-case.ts';
import { signedIn } from './account.cases.ts';

const CALLBACK = 'http://127.0.0.1:9/connector-callback';

/**
 * A verified social verification record of the user signed in as `me`. The service is its own provider here (a
 * connector to its own issuer, another of its users signing in there): the event cases run on one instance; the
 * tests under test/connectors use a second one.
 */
async function verifiedSocialRecord(
  h: Harness,
  me: Awaited<ReturnType<typeof signedIn>>['me'],
): Promise<{ record: string; target: string }> {
  const app = await createApplication(h.running, {
    type: 'Traditional',
    oidcClientMetadata: { redirectUris: [CALLBACK] },
  });
  const target = unique('self');
  const connector = await ok(
    h.api('POST', '/connectors', {
      connectorId: 'oidc',
      metadata: { target },
      config: { clientId: app.id, clientSecret: app.secret, issuer: `${h.running.baseUrl}/oidc` },
    }),
  );
  const username = unique('provider');
  await ok(h.api('POST', '/users', { username, password: 'Correct-Horse-7' }));
  const started = await me('/api/verifications/social', {
    method: 'POST',
    json: { connectorId: connector.id, redirectUri: CALLBACK, state: 'event-case-state' },
  });
  const browser = new Browser();
  const page = await browser.follow(started.body!.authorizationUri as string, CALLBACK);
  const done = await browser.submit(
    `${page.url}/login`,
    { identifier: username, password: 'Correct-Horse-7' },
    CALLBACK,
  );
  const verified = await me('/api/verifications/social/verify', {
    method: 'POST',
    json: {
      verificationRecordId: started.body!.verificationRecordId,
      connectorData: Object.fromEntries(new URL(done.url).searchParams),
    },
  });
  if (verified.status !== 200)
    throw new Error(`social verification failed: ${verified.status} ${JSON.stringify(verified.body)}`);
  return { record: started.body!.verificationRecordId as string, target };
}

export const accountIdentityEventCases: EventCase[] = [
  {
    route: 'POST /my-account/identities',
    title: 'linking a verified social identity publishes User.Data.Updated with the whole user',
    async arrange(h) {
      const { me, auth, whole } = await signedIn(h);
      const { record } = await verifiedSocialRecord(h, me);
      const identity = await passwordRecord(me, 'correct horse battery');
      return {
        path: '/my-account/identities',
        params: {},
        status: 204,
        headers: { ...auth, 'logto-verification-id': identity },
        body: { newIdentifierVerificationRecordId: record },
        expected: whole,
        failures: [
          {
            why: 'no identity verification',
            path: '/my-account/identities',
            body: { newIdentifierVerificationRecordId: record },
            headers: auth,
            status: 401,
          },
          {
            why: 'unknown record',
            path: '/my-account/identities',
            body: { newIdentifierVerificationRecordId: 'nope' },
            status: 400,
          },
          { why: 'no record named', path: '/my-account/identities', body: {}, status: 400 },
        ],
      };
    },
  },
  {
    route: 'DELETE /my-account/identities/:target',
    title: 'unlinking a social identity publishes User.Data.Updated with the whole user',
    async arrange(h) {
      const { user, me, auth, whole } = await signedIn(h);
      await ok(h.api('PUT', `/users/${user.id}/identities/github`, { userId: unique('gh') }));
      const identity = await passwordRecord(me, 'correct horse battery');
      return {
        path: '/my-account/identities/github',
        params: { target: 'github' },
        status: 204,
        headers: { ...auth, 'logto-verification-id': identity },
        expected: whole,
        failures: [
          { why: 'no identity verification', path: '/my-account/identities/github', headers: auth, status: 401 },
          { why: 'no identity for this target', path: '/my-account/identities/gitlab', status: 404 },
        ],
      };
    },
  },
];
