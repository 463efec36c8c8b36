import { z } from 'zod';

/**
 * What a browser answers a WebAuthn ceremony with (`PublicKeyCredential.toJSON()`), in Logto's payload shape:
 * `type` is `'WebAuthn'` there (`'public-key'`, the browser's own value, is taken too). Binary fields are base64url.
 * Extension outputs are not acted on: unknown ones are dropped.
 */
const base64url = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(/^[\w-]+={0,2}$/, 'must be base64url');

const common = {
  type: z.enum(['WebAuthn', 'public-key']),
  id: base64url(1024).describe('The credential id'),
  rawId: base64url(1024),
  authenticatorAttachment: z.enum(['cross-platform', 'platform']).optional(),
  clientExtensionResults: z.object({
    appid: z.boolean().optional(),
    credProps: z.object({ rk: z.boolean().optional() }).optional(),
    hmacCreateSecret: z.boolean().optional(),
  }),
};

export const registrationPayload = z
  .object({
    ...common,
    response: z
      .object({
        clientDataJSON: base64url(4096),
        attestationObject: base64url(65_536),
        authenticatorData: base64url(65_536).optional(),
        transports: z
          .array(z.enum(['ble', 'cable', 'hybrid', 'internal', 'nfc', 'smart-card', 'usb']))
          .max(8)
          .optional(),
        publicKeyAlgorithm: z.number().int().optional(),
        publicKey: base64url(65_536).optional(),
      })
      .strict(),
  })
  .strict();
export type RegistrationPayload = z.infer<typeof registrationPayload>;

export const authenticationPayload = z
  .object({
    ...common,
    response: z
      .object({
        clientDataJSON: base64url(4096),
        authenticatorData: base64url(65_536),
        signature: base64url(4096),
        userHandle: base64url(1024).optional(),
      })
      .strict(),
  })
  .strict();
export type AuthenticationPayload = z.infer<typeof authenticationPayload>;
