import { createHash, randomBytes } from 'node:crypto';
import { newId } from '../ids.ts';

/** Ten codes per set, as Logto issues them. */
export const BACKUP_CODE_COUNT = 10;
/** 12 characters of [0-9a-z]: about 62 bits each, beyond offline guessing of a salted SHA-256 digest. */
const LENGTH = 12;

export interface HashedCodes {
  salt: string;
  digests: string[];
}

/** How a typed code is compared: case, spaces and dashes do not matter. */
export function normalizeBackupCode(code: string): string {
  return code.toLowerCase().replace(/[\s-]/g, '');
}

export function backupCodeDigest(salt: string, code: string): string {
  return createHash('sha256')
    .update(`${salt}:${normalizeBackupCode(code)}`, 'utf8')
    .digest('hex');
}

/** What is kept of a set of codes: their digests under a new random salt. */
export function hashBackupCodes(codes: readonly string[]): HashedCodes {
  const salt = randomBytes(16).toString('base64url');
  return { salt, digests: codes.map((code) => backupCodeDigest(salt, code)) };
}

/** A set as this service issues it: ten distinct codes of 12 characters [0-9a-z] (dashes and spaces aside). */
export function isBackupCodeSet(codes: readonly string[]): boolean {
  const normalized = codes.map(normalizeBackupCode);
  return (
    normalized.length === BACKUP_CODE_COUNT &&
    new Set(normalized).size === normalized.length &&
    normalized.every((code) => new RegExp(`^[0-9a-z]{${LENGTH}}$`).test(code))
  );
}

/** A new set: the clear codes (shown once) and what is kept of them. */
export function newBackupCodes(): { codes: string[]; hashed: HashedCodes } {
  const codes = Array.from({ length: BACKUP_CODE_COUNT }, () => newId(LENGTH));
  return { codes, hashed: hashBackupCodes(codes) };
}
