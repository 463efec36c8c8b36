import { z } from 'zod';
import { declare, idParam, type ApiRouterDeps } from '../../lib/http/api.ts';
import type { ServiceCore } from '../../lib/core.ts';
import { isTotpSecret, newTotpSecret } from '../../lib/mfa/totp.ts';
import { createdFactor, mfaFactor } from './schemas.ts';

const tag = 'Users';
const byUser = z.object({ userId: idParam });

const createBody = z.discriminatedUnion('type', [
  z
    .object({
      type: z.literal('Totp'),
      secret: z
        .string()
        .refine(isTotpSecret, 'must be base32 (A-Z, 2-7), 16 to 128 characters')
        .optional()
        .describe('An existing secret to import; generated when left out'),
    })
    .strict(),
  z.object({ type: z.literal('BackupCode') }).strict(),
]);

/**
 * A support team's view of a user's second factors (Logto's routes): list them without secrets, set up an
 * authenticator app or backup codes for the user (the secret or codes answered once, to hand over), remove one.
 * The MFA library states each change as User.Data.Updated with the user, never a secret.
 */
export function userMfaRoutes(api: ApiRouterDeps, core: Pick<ServiceCore, 'mfa'>): void {
  const { mfa } = core;

  declare(api, {
    method: 'get',
    path: '/users/:userId/mfa-verifications',
    tag,
    summary: "List a user's second factors (no secrets)",
    params: byUser,
    response: z.array(mfaFactor),
    handler: ({ params }) => mfa.list(params.userId),
  });

  declare(api, {
    method: 'post',
    path: '/users/:userId/mfa-verifications',
    tag,
    status: 201,
    params: byUser,
    body: createBody,
    response: createdFactor,
    summary:
      'Add a TOTP authenticator (422 user.totp_already_in_use when one exists) or a set of ten backup codes ' +
      '(422 user.backup_code_already_in_use while unused ones remain; 422 session.mfa.backup_code_can_not_be_alone ' +
      'without another factor); the secret or the codes are answered this once',
    async handler({ params, body }) {
      if (body.type === 'Totp') {
        const secret = body.secret ?? newTotpSecret();
        const { factor, user } = await mfa.addTotp(params.userId, secret);
        return { type: 'Totp' as const, id: factor.id, secret, ...(await mfa.enrolmentOf(user, secret)) };
      }
      const { codes, factor } = await mfa.generateBackupCodes(params.userId, { replace: false });
      return { type: 'BackupCode' as const, id: factor.id, codes };
    },
  });

  declare(api, {
    method: 'delete',
    path: '/users/:userId/mfa-verifications/:verificationId',
    tag,
    status: 204,
    params: z.object({ userId: idParam, verificationId: idParam }),
    summary: "Remove one of a user's second factors",
    async handler({ params }) {
      await mfa.remove(params.userId, params.verificationId);
    },
  });
}
