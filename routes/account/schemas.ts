import { z } from 'zod';
import { jsonObject } from '../../lib/http/schemas.ts';
import { PASSWORD_POLICY } from '../../lib/users/passwords.ts';
import { avatar, email, password, phone, profile, user, username } from '../users/schemas.ts';

/** The account as the user's token may see it: `id` always, every other field when scope and account center allow. */
export const accountProfile = user.partial().required({ id: true });

export const basicsBody = z
  .object({
    name: z.string().max(256).nullable().optional(),
    avatar: avatar.nullable().optional(),
    username: username.nullable().optional(),
    customData: jsonObject.optional(),
  })
  .strict();

export const profileBody = profile;
export const profileResponse = z.record(z.string(), z.unknown());
export const passwordBody = z.object({ password }).strict();

const recordId = z.string().min(1).max(128);

export const primaryEmailBody = z.object({ email, newIdentifierVerificationRecordId: recordId }).strict();
export const primaryPhoneBody = z.object({ phone, newIdentifierVerificationRecordId: recordId }).strict();

/** Logto's `verificationCodeIdentifierGuard`: where a code goes. */
export const codeIdentifier = z.discriminatedUnion('type', [
  z.object({ type: z.literal('email'), value: email }).strict(),
  z.object({ type: z.literal('phone'), value: phone }).strict(),
]);

/** Verification takes any string: the policy applies to setting a password, not to checking one. */
export const verifyPasswordBody = z.object({ password: z.string().min(1).max(PASSWORD_POLICY.maxLength) }).strict();
export const sendCodeBody = z.object({ identifier: codeIdentifier }).strict();
export const verifyCodeBody = z
  .object({
    identifier: codeIdentifier,
    verificationId: recordId,
    code: z.string().min(1).max(64),
  })
  .strict();

export const issuedRecord = z.object({
  verificationRecordId: z.string(),
  expiresAt: z.string().describe('ISO time after which the record no longer counts'),
});
export const verifiedRecord = z.object({ verificationRecordId: z.string() });
