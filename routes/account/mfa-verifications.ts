import { z } from 'zod';
import { errors } from '../../lib/errors.ts';
import { declare, idParam, type ApiRouterDeps } from '../../lib/http/api.ts';
import type { ServiceCore } from '../../lib/core.ts';
import { VERIFICATION_RECORD_TTL_SECONDS } from '../../lib/account/verifications.ts';
import { newId } from '../../lib/ids.ts';
import { publicFactor } from '../../lib/mfa/library.ts';
import { registrationPayload } from '../../lib/mfa/webauthn-payloads.ts';
import { mfaFactor } from '../mfa/schemas.ts';
import { addOwnFactor, backupCodeBody, totpBody } from '../mfa/own-factors.ts';

const tag = 'Account';
const recordId = z.string().min(1).max(128);
const passkeyName = z.string().trim().min(1).max(128);
const byFactor = z.object({ verificationId: idParam });

/**
 * Logto's body: the new factor by type. Passkeys come from a verified `web-authn/registration` record; an
 * authenticator app and backup codes from `totp-secret/generate` and `backup-codes/generate` (routes/mfa/account.ts).
 */
const addBody = z.discriminatedUnion('type', [
  z
    .object({
      type: z.literal('WebAuthn'),
      newIdentifierVerificationRecordId: recordId.describe(
        'The record of POST /verifications/web-authn/registration/verify',
      ),
      name: passkeyName.optional().describe('What the user calls this passkey ("Work laptop")'),
    })
    .strict(),
  totpBody,
  backupCodeBody,
]);

/**
 * The user's own second factors in the Account API (Logto's `/api/my-account/mfa-verifications`), under the
 * account center's `mfa` field and the token's `identities` scope; every change goes through the identity gate
 * (`logto-verification-id`) and publishes User.Data.Updated. Passkeys are registered with a verification record
 * (`/api/verifications/web-authn/registration`, then `/verify`), bound here, renamed and removed.
 */
export function accountMfaRoutes(
  user: ApiRouterDeps,
  core: Pick<ServiceCore, 'account' | 'mfa' | 'signInExperience'>,
): void {
  const { account } = core;
  const { mfa, signInExperience } = core;
  const { passkeys } = mfa;

  declare(user, {
    method: 'post',
    path: '/verifications/web-authn/registration',
    tag: 'Account verifications',
    scope: 'identities',
    response: z.object({
      verificationRecordId: z.string(),
      registrationOptions: z
        .record(z.string(), z.unknown())
        .describe('For navigator.credentials.create(): rp.id is the host of BASE_URL'),
      expiresAt: z.string(),
    }),
    summary: 'Start registering a passkey: creation options for the browser, answered to /verify within five minutes',
    async handler({ koa }) {
      const { user: me } = await account.authorize(koa, { field: 'mfa', access: 'edit' });
      const verificationRecordId = newId();
      const registrationOptions = await passkeys.registrationOptions(verificationRecordId, me);
      return {
        verificationRecordId,
        registrationOptions,
        expiresAt: new Date(Date.now() + passkeys.challengeTtlMs).toISOString(),
      };
    },
  });

  declare(user, {
    method: 'post',
    path: '/verifications/web-authn/registration/verify',
    tag: 'Account verifications',
    scope: 'identities',
    body: z.object({ verificationRecordId: recordId, payload: registrationPayload }).strict(),
    response: z.object({ verificationRecordId: z.string() }),
    summary:
      'Check the passkey the browser created (each challenge answered once); the record then binds it for ten minutes',
    async handler({ koa, body }) {
      const { user: me } = await account.authorize(koa, { field: 'mfa', access: 'edit' });
      const credential = await passkeys.verifyRegistration(body.verificationRecordId, me.id, {
        ...body.payload,
        type: 'public-key',
      });
      const agent = koa.get('user-agent');
      await passkeys.holdRegistration(
        body.verificationRecordId,
        me.id,
        { ...credential, ...(agent && { agent }) },
        VERIFICATION_RECORD_TTL_SECONDS * 1000,
      );
      return { verificationRecordId: body.verificationRecordId };
    },
  });

  declare(user, {
    method: 'get',
    path: '/my-account/mfa-verifications',
    tag,
    scope: 'identities',
    response: z.array(mfaFactor),
    summary: "The user's second factors (never a secret, a code or a key)",
    async handler({ koa }) {
      const { user: me } = await account.authorize(koa, { field: 'mfa', access: 'read' });
      return mfa.list(me.id);
    },
  });

  declare(user, {
    method: 'post',
    path: '/my-account/mfa-verifications',
    tag,
    scope: 'identities',
    status: 204,
    body: addBody,
    summary:
      'Add a passkey from a verified registration record, an authenticator app (its secret and a code from it) or ' +
      "backup codes (identity gate; the type must be among the sign-in experience's factors); 422 user.totp_already_in_use, " +
      'user.backup_code_already_in_use, session.mfa.backup_code_can_not_be_alone, user.wrong_backup_code_format',
    async handler({ koa, body }) {
      const { user: me } = await account.authorize(koa, { field: 'mfa', access: 'edit', identity: true });
      if (!(await signInExperience.get()).mfa.factors.includes(body.type)) {
        throw errors.experience(
          'session.mfa.mfa_factor_not_enabled',
          `the sign-in experience does not offer ${body.type} as a second factor`,
        );
      }
      if (body.type !== 'WebAuthn') {
        await addOwnFactor(mfa, me.id, body);
        return;
      }
      const held = await passkeys.spendRegistration(body.newIdentifierVerificationRecordId, me.id);
      if (!held)
        throw errors.account(
          'verification_record.not_found',
          'no verified passkey registration of this user has this id',
        );
      const { agent, ...credential } = held;
      await passkeys.add(me.id, credential, { name: body.name, agent });
    },
  });

  declare(user, {
    method: 'patch',
    path: '/my-account/mfa-verifications/:verificationId/name',
    tag,
    scope: 'identities',
    params: byFactor,
    body: z.object({ name: passkeyName }).strict(),
    response: mfaFactor,
    summary: 'Rename a passkey (identity gate); 404 for any other factor',
    async handler({ koa, params, body }) {
      const { user: me } = await account.authorize(koa, { field: 'mfa', access: 'edit', identity: true });
      const { factor } = await passkeys.rename(me.id, params.verificationId, body.name);
      return publicFactor(factor);
    },
  });

  declare(user, {
    method: 'delete',
    path: '/my-account/mfa-verifications/:verificationId',
    tag,
    scope: 'identities',
    params: byFactor,
    status: 204,
    summary:
      "Remove one of the user's second factors (identity gate); where a second factor is mandatory, never the last " +
      'authenticator app or passkey (422 session.mfa.mfa_policy_not_user_controlled)',
    async handler({ koa, params }) {
      const { user: me } = await account.authorize(koa, { field: 'mfa', access: 'edit', identity: true });
      await mfa.removeOwn(me.id, params.verificationId, (await signInExperience.get()).mfa);
    },
  });
}
