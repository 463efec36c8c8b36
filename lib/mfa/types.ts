export const MFA_FACTOR_TYPES = ['Totp', 'BackupCode', 'WebAuthn'] as const;
export type MfaFactorType = (typeof MFA_FACTOR_TYPES)[number];
