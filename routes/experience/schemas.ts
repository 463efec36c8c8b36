import { z } from 'zod';
import { INTERACTION_EVENTS, identifierType } from '../../lib/experience/types.ts';
import { email, username } from '../users/schemas.ts';

/** Logto's Experience API bodies; unknown fields (a captcha token, say) are refused, never ignored. */

export const interactionEvent = z.enum(INTERACTION_EVENTS);
export const eventBody = z.object({ interactionEvent }).strict();

const verificationId = z.string().min(1).max(128);
/** Checking a secret takes any string up to the stored maximum; the policy applies when one is set. */
const secret = z.string().min(1).max(256);

export const passwordVerificationBody = z
  .object({
    identifier: z.object({ type: identifierType, value: z.string().trim().min(1).max(320) }).strict(),
    password: secret,
  })
  .strict();

export const codeIdentifier = z.discriminatedUnion('type', [
  z.object({ type: z.literal('email'), value: email }).strict(),
  z
    .object({ type: z.literal('phone'), value: z.string().min(1).max(32).regex(/^\d+$/, 'must be digits only') })
    .strict(),
]);

export const sendCodeBody = z.object({ identifier: codeIdentifier, interactionEvent }).strict();
export const verifyCodeBody = z
  .object({
    identifier: codeIdentifier,
    verificationId,
    code: z.string().min(1).max(64),
  })
  .strict();

export const identificationBody = z
  .object({
    verificationId: verificationId
      .optional()
      .describe(
        'SignIn and ForgotPassword: the verification naming the account. Register: optional, a verified email or phone',
      ),
    linkSocialIdentity: z
      .boolean()
      .optional()
      .describe(
        "Social sign-in: link the identity to the account with the provider's verified email (data.relatedUser of 404 user.identity_not_exist)",
      ),
  })
  .strict();

export const profileBody = z.discriminatedUnion('type', [
  z.object({ type: z.literal('username'), value: username }).strict(),
  z.object({ type: z.literal('password'), value: secret }).strict(),
  z.object({ type: z.literal('email'), verificationId }).strict(),
  z.object({ type: z.literal('phone'), verificationId }).strict(),
]);

export const passwordBody = z.object({ password: secret }).strict();

export const verificationResponse = z.object({ verificationId: z.string() });
export const submitResponse = z.object({ redirectTo: z.string() });

export const experienceState = z.object({
  interactionEvent,
  userId: z.string().optional(),
  profile: z.object({
    username: z.string().optional(),
    primaryEmail: z.string().optional(),
    primaryPhone: z.string().optional(),
    password: z.literal(true).optional().describe('A password is set (never the password or its digest)'),
  }),
  verificationRecords: z.array(
    z.object({
      id: z.string(),
      type: z.string(),
      identifier: z.object({ type: identifierType, value: z.string() }),
      verified: z.boolean(),
    }),
  ),
});

/** The second-factor step (Logto's paths and shapes). */
export const totpSecretResponse = z.object({
  verificationId: z.string(),
  secret: z.string().describe('Base32; shown this once'),
  secretQrCode: z.string().describe('The otpauth URI as a QR code, a PNG data URL'),
  keyUri: z.string().describe('The otpauth:// URI (beyond Logto), for apps that take a link'),
});
export const totpVerifyBody = z
  .object({
    code: z.string().min(1).max(64),
    verificationId: verificationId
      .optional()
      .describe("Confirms the new secret this verification holds; without it, checks the account's app"),
  })
  .strict();
export const backupCodesResponse = z.object({
  verificationId: z.string(),
  codes: z.array(z.string()).describe('Shown this once'),
});
export const backupCodeVerifyBody = z.object({ code: z.string().min(1).max(64) }).strict();
export const bindMfaBody = z
  .object({
    type: z.enum(['Totp', 'BackupCode', 'WebAuthn']),
    verificationId,
  })
  .strict();
