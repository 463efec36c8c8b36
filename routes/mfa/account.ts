import { z } from 'zod';
import { declare, type ApiRouterDeps } from '../../lib/http/api.ts';
import type { ServiceCore } from '../../lib/core.ts';
import { errors } from '../../lib/errors.ts';
import { newBackupCodes } from '../../lib/mfa/backup-codes.ts';
import { newTotpSecret } from '../../lib/mfa/totp.ts';
import { accountApi } from '../account/index.ts';

const tag = 'Account';

/**
 * What a user's app or backup codes start from in the Account API (Logto's paths): a new TOTP secret (with its
 * URI and QR code) and ten new backup codes, generated and shown, nothing stored until
 * `POST /api/my-account/mfa-verifications` adds them behind the identity gate.
 */
export function accountMfaSecretRoutes(
  api: ApiRouterDeps,
  core: Pick<ServiceCore, 'account' | 'mfa' | 'signInExperience'>,
): void {
  const user = accountApi(api, core);
  const { account } = core;
  const { mfa, signInExperience } = core;

  async function assertOffered(type: 'Totp' | 'BackupCode'): Promise<void> {
    if (!(await signInExperience.get()).mfa.factors.includes(type)) {
      throw errors.experience(
        'session.mfa.mfa_factor_not_enabled',
        `the sign-in experience does not offer ${type} as a second factor`,
      );
    }
  }

  declare(user, {
    method: 'post',
    path: '/my-account/mfa-verifications/totp-secret/generate',
    tag,
    scope: 'identities',
    response: z.object({ secret: z.string(), secretQrCode: z.string(), keyUri: z.string() }),
    summary:
      "A new TOTP secret for the user's app, with its otpauth URI and QR code (nothing is stored until it is added)",
    async handler({ koa }) {
      const { user: me } = await account.authorize(koa, { field: 'mfa', access: 'edit' });
      await assertOffered('Totp');
      const secret = newTotpSecret();
      return { secret, ...(await mfa.enrolmentOf(me, secret)) };
    },
  });

  declare(user, {
    method: 'post',
    path: '/my-account/mfa-verifications/backup-codes/generate',
    tag,
    scope: 'identities',
    response: z.object({ codes: z.array(z.string()) }),
    summary: 'Ten new backup codes to show the user (nothing is stored until they are added)',
    async handler({ koa }) {
      await account.authorize(koa, { field: 'mfa', access: 'edit' });
      await assertOffered('BackupCode');
      return { codes: newBackupCodes().codes };
    },
  });
}
