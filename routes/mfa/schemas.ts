import { z } from 'zod';
import { MFA_FACTOR_TYPES } from '../../lib/mfa/types.ts';

/** A factor as listed (Logto's `mfaVerifications` item): never its secret, codes or key. */
export const mfaFactor = z.object({
  id: z.string(),
  type: z.enum(MFA_FACTOR_TYPES),
  createdAt: z.string().describe('ISO 8601, as Logto answers it'),
  lastUsedAt: z.string().optional(),
  remainCodes: z.number().int().optional().describe('BackupCode: how many codes are still unused'),
  name: z.string().optional().describe('WebAuthn: the name the user gave the credential'),
  agent: z.string().optional().describe('WebAuthn: the user agent it was registered from'),
});

/** What creating a factor answers: the secret or the codes, this once. */
export const createdFactor = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('Totp'),
    id: z.string(),
    secret: z.string().describe('Base32; shown this once'),
    secretQrCode: z.string().describe('The otpauth URI as a QR code, a PNG data URL'),
    keyUri: z.string().describe('The otpauth:// URI'),
  }),
  z.object({ type: z.literal('BackupCode'), id: z.string(), codes: z.array(z.string()).describe('Shown this once') }),
]);
