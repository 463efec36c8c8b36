import { z } from 'zod';
import { connectorSignIn, connectorVerification } from './connector-types.ts';

/**
 * The state of one end-user experience (Logto's Experience API): what the user is doing, what they proved and
 * what they are building. Stored per OIDC interaction in the key-value store as JSON; parsed back through these
 * schemas, so a record written by another version of the service is refused rather than half-read.
 */

export const INTERACTION_EVENTS = ['SignIn', 'Register', 'ForgotPassword'] as const;
export const interactionEvent = z.enum(INTERACTION_EVENTS);
export type InteractionEvent = z.infer<typeof interactionEvent>;

export const identifierType = z.enum(['username', 'email', 'phone']);
export type IdentifierType = z.infer<typeof identifierType>;

export interface ExperienceIdentifier {
  type: IdentifierType;
  value: string;
}

/** Logto's verification types this service implements. */
export const VERIFICATION_TYPES = ['Password', 'EmailVerificationCode', 'PhoneVerificationCode'] as const;
export type VerificationType = (typeof VERIFICATION_TYPES)[number];

const identifier = z.object({ type: identifierType, value: z.string() });

const verificationRecord = z.object({
  id: z.string(),
  type: z.enum(VERIFICATION_TYPES),
  identifier,
  verified: z.boolean(),
  /** The account the verification proved, for a password; codes find it at identification. */
  userId: z.string().optional(),
  /** The purpose a code was sent for (the event named when it was asked for). */
  purpose: interactionEvent.optional(),
  /** A code that was never sent (forgot password for an unknown address): it can never be verified. */
  undelivered: z.boolean().optional(),
});
export type VerificationRecord = z.infer<typeof verificationRecord>;

/** What the user is building: applied to a new user at identification (Register) or at submit. */
const profile = z.object({
  username: z.string().optional(),
  primaryEmail: z.string().optional(),
  primaryPhone: z.string().optional(),
  /** Hashed as soon as it is received: no password is ever kept in clear text. */
  passwordDigest: z.string().optional(),
});
export type ExperienceProfile = z.infer<typeof profile>;

/**
 * A second-factor verification of this experience (Logto's TOTP and BackupCode verification records), made for
 * one account (`userId`): it either proves one of that account's factors (`verified`, nothing new), or sets up a
 * new factor that `POST /profile/mfa` binds and submit stores. What a new factor carries is sealed to its account
 * and verification, so it opens for no other. A passkey's challenge is not kept here but in the key-value store,
 * where its answer takes it (once).
 */
const mfaVerification = z.object({
  id: z.string(),
  type: z.enum(['Totp', 'BackupCode', 'WebAuthn']),
  /** The account this verification was made for. */
  userId: z.string(),
  verified: z.boolean(),
  /** A TOTP secret being set up, sealed (it is in clear nowhere but the answer that showed it). */
  newSecret: z.string().optional(),
  /** The time step of the code that confirmed the new secret: it cannot be used again. */
  acceptedStep: z.number().optional(),
  /** New backup codes, hashed as they will be stored, then sealed. */
  newCodes: z.string().optional(),
  /** A passkey whose registration verified (its public key and the agent it came from), sealed. */
  newCredential: z.string().optional(),
});
export type MfaVerificationRecord = z.infer<typeof mfaVerification>;

export const experienceRecord = z.object({
  interactionEvent,
  /** At most one record per verification type: a new one replaces the old, as in Logto. */
  verifications: z.array(verificationRecord),
  userId: z.string().optional(),
  /** The user was created by this experience (Register), at identification. */
  userCreated: z.boolean().optional(),
  profile,
  /**
   * The social verification a registration was refused for while the profile lacked what sign-up requires
   * (422 `user.missing_profile`): identification without a verification registers through it once completed.
   */
  connectorRegistration: z.string().optional(),
  /** Verifications through social and enterprise connectors (one per type, a new one replaces the old). */
  connectorVerifications: z.array(connectorVerification).optional(),
  /**
   * What follows is about the identified account only, and names it: a new account or a new interaction event
   * drops it all (`dropAccountState`), and submit uses none made for another account.
   */
  /** The account was identified (or created) through a connector. */
  connectorSignIn: connectorSignIn.optional(),
  mfaVerifications: z.array(mfaVerification).optional(),
  /** Verifications of new factors to store at submit (`POST /profile/mfa`), one per type, for the account `userId`. */
  mfaBind: z
    .object({
      userId: z.string(),
      Totp: z.string().optional(),
      BackupCode: z.string().optional(),
      WebAuthn: z.string().optional(),
    })
    .optional(),
  /** The account `userId` chose not to enrol now (`POST /profile/mfa/mfa-skipped`); stored on it at submit. */
  mfaSkipped: z.object({ userId: z.string() }).optional(),
});
export type ExperienceRecord = z.infer<typeof experienceRecord>;

/** Drops everything recorded for the identified account: its proofs, new factors, choices and connector sign-in. */
export function dropAccountState(record: ExperienceRecord): void {
  delete record.connectorSignIn;
  delete record.mfaVerifications;
  delete record.mfaBind;
  delete record.mfaSkipped;
}

/** Whether everything recorded for an account in this experience was recorded for `userId`. */
export function accountStateBelongsTo(record: ExperienceRecord, userId: string): boolean {
  const owners = [
    record.connectorSignIn?.userId,
    record.mfaBind?.userId,
    record.mfaSkipped?.userId,
    ...(record.mfaVerifications ?? []).map((item) => item.userId),
  ];
  return owners.every((owner) => owner === undefined || owner === userId);
}

/**
 * The account the experience is about from now on. A different one (or none) drops what was recorded for the
 * previous one, so no proof, factor or choice made for one account reaches another.
 */
export function identifyAs(record: ExperienceRecord, userId: string | undefined): void {
  if (record.userId !== userId) dropAccountState(record);
  if (userId === undefined) delete record.userId;
  else record.userId = userId;
}

/** Who is asking, for event payloads: the OIDC interaction and the HTTP request it arrived in. */
export interface ExperienceRequest {
  /** The OIDC interaction's uid (the page has it in its path; the API reads it from its cookie). */
  uid: string;
  ip: string;
  userAgent: string | undefined;
}

/** The profile fields a client can read back: never the password digest. */
export function publicProfile(
  value: ExperienceProfile,
): Omit<ExperienceProfile, 'passwordDigest'> & { password?: true } {
  const { passwordDigest, ...rest } = value;
  return passwordDigest ? { ...rest, password: true } : rest;
}

/**
 * The account was signed in through an enterprise SSO connector: its provider authenticated the user, second factor
 * included, so no second factor is asked for here (as Logto does); social sign-ins still are.
 */
export function signedInByEnterpriseSso(record: ExperienceRecord): boolean {
  const signIn = connectorSignInOf(record);
  return (
    Boolean(signIn) &&
    record.connectorVerifications?.find((item) => item.id === signIn!.verificationId)?.type === 'EnterpriseSso'
  );
}

/** The connector sign-in of the identified account; one recorded for another account counts for nothing. */
export function connectorSignInOf(record: ExperienceRecord): ExperienceRecord['connectorSignIn'] {
  const signIn = record.connectorSignIn;
  return signIn && record.userId !== undefined && signIn.userId === record.userId ? signIn : undefined;
}
