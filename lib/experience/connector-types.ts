import { z } from 'zod';

/**
 * A verification through a social or enterprise connector (Logto's `Social` and `EnterpriseSso` records): what was
 * sent to the upstream, until its callback is verified, then who the upstream says the user is.
 */
export const connectorVerification = z.object({
  id: z.string(),
  type: z.enum(['Social', 'EnterpriseSso']),
  connectorId: z.string(),
  pending: z
    .object({
      state: z.string(),
      nonce: z.string().optional(),
      codeVerifier: z.string(),
      redirectUri: z.string(),
    })
    .optional(),
  profile: z
    .object({
      id: z.string(),
      email: z.string().optional(),
      emailVerified: z.boolean(),
      phone: z.string().optional(),
      name: z.string().optional(),
      avatar: z.string().optional(),
      issuer: z.string().optional(),
      rawData: z.record(z.string(), z.unknown()),
    })
    .optional(),
});
export type ConnectorVerification = z.infer<typeof connectorVerification>;

/** Where a connector sign-in stands: the verification that identified the account, and whether its identity is new to it. */
export const connectorSignIn = z.object({
  verificationId: z.string(),
  /** The account it identified. */
  userId: z.string(),
  /** The identity is linked to the account at submit (sign-in by a related email: Logto's `linkSocialIdentity`, or SSO). */
  link: z.boolean(),
});
