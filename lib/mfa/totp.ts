import { Secret, TOTP, URI } from 'otpauth';

/** RFC 6238 as every authenticator app reads it: SHA-1, six digits, 30-second steps. */
const PERIOD = 30;
const DIGITS = 6;

/** A new secret: 20 random bytes (160 bits, RFC 4226's recommendation), base32 as apps take it. */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

/** Whether a text is a base32 secret of at least 80 bits (RFC 4226's minimum) an app could hold. */
export function isTotpSecret(text: string): boolean {
  return /^[A-Z2-7]{16,128}$/.test(text);
}

function totpOf(secret: string, label = 'account', issuer = ''): TOTP {
  return new TOTP({
    issuer,
    label,
    secret: Secret.fromBase32(secret),
    digits: DIGITS,
    period: PERIOD,
    algorithm: 'SHA1',
  });
}

/**
 * The time step a code belongs to, when it matches one of the current step and its neighbours (clock drift
 * of ±30 s); undefined otherwise. otpauth compares the codes in constant time.
 */
export function totpStepOf(secret: string, code: string, now = Date.now()): number | undefined {
  if (!/^\d{6}$/.test(code)) return undefined;
  const totp = totpOf(secret);
  const delta = totp.validate({ token: code, timestamp: now, window: 1 });
  return delta === null ? undefined : totp.counter({ timestamp: now }) + delta;
}

/**
 * The `otpauth://` URI an app scans, and the same as a QR code image (PNG data URL). The QR code library (and its PNG
 * encoder) loads with the first enrolment.
 */
export async function totpEnrolment(
  secret: string,
  label: string,
  issuer: string,
): Promise<{ keyUri: string; secretQrCode: string }> {
  const keyUri = URI.stringify(totpOf(secret, label, issuer));
  const { default: QRCode } = await import('qrcode');
  return { keyUri, secretQrCode: await QRCode.toDataURL(keyUri, { errorCorrectionLevel: 'M', margin: 2, width: 240 }) };
}
