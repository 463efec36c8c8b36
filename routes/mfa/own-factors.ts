import { z } from 'zod';
import { errors } from '../../lib/errors.ts';
import { hashBackupCodes, isBackupCodeSet } from '../../lib/mfa/backup-codes.ts';
import type { MfaLibrary } from '../../lib/mfa/library.ts';
import { isTotpSecret, totpStepOf } from '../../lib/mfa/totp.ts';
import type { User } from '../../lib/users/repository.ts';

/** The bodies of `POST /api/my-account/mfa-verifications` for an authenticator app and for backup codes. */
export const totpBody = z
  .object({
    type: z.literal('Totp'),
    secret: z.string().min(1).max(128).describe('The secret from totp-secret/generate, as the app holds it'),
    code: z
      .string()
      .min(1)
      .max(64)
      .describe('A code the app computed from it: required here (Logto makes it optional)'),
  })
  .strict();
export const backupCodeBody = z
  .object({
    type: z.literal('BackupCode'),
    codes: z.array(z.string().max(64)).max(20).describe('The ten codes from backup-codes/generate'),
  })
  .strict();

/**
 * Stores the user's new authenticator app (a well-formed secret, proven by a code of it, which is then spent) or
 * set of backup codes (the ten this service generated, kept hashed); answers the user after it.
 */
export async function addOwnFactor(
  mfa: MfaLibrary,
  userId: string,
  body: z.infer<typeof totpBody> | z.infer<typeof backupCodeBody>,
): Promise<User> {
  if (body.type === 'Totp') {
    if (!isTotpSecret(body.secret))
      throw errors.invalid('user.totp_secret_invalid', 'the secret is not a base32 TOTP secret of 80 to 640 bits');
    const step = totpStepOf(body.secret, body.code);
    if (step === undefined)
      throw errors.experience('session.mfa.invalid_totp_code', 'the code does not match the secret');
    return (await mfa.addTotp(userId, body.secret, step)).user;
  }
  if (!isBackupCodeSet(body.codes)) {
    throw errors.unprocessable(
      'user.wrong_backup_code_format',
      'backup codes come as the ten codes backup-codes/generate made',
    );
  }
  return (await mfa.addBackupCodes(userId, hashBackupCodes(body.codes), { replace: false })).user;
}
