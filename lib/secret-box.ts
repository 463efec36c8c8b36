import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Encryption at rest for secrets that must be read back, so cannot be hashed: TOTP secrets (needed in clear to
 * compute codes) and connectors' client secrets (sent to the upstream). AES-256-GCM under keys derived with
 * HKDF-SHA256 from a list of configured keys, separately per purpose (`mfa`: `MFA_SECRET_KEYS`, default
 * `COOKIE_KEYS`; `connector`: `COOKIE_KEYS`): the first key encrypts, every key decrypts, so a key is rotated by
 * putting the new one first and keeping the old one listed until every secret was re-encrypted or removed. Each
 * ciphertext names its key (`kid`, a digest of the derived key, never the key) and is bound to its record by the
 * associated data (`context`: the record's ids), so a ciphertext copied to another record does not open.
 */
export interface SecretBox {
  seal(plain: string, context: string): string;
  /** The clear text, or undefined when no listed key opens it (a key was dropped) or it was tampered with. */
  open(sealed: string, context: string): string | undefined;
}

const VERSION = 'v1';

export function createSecretBox(keys: readonly string[], purpose: 'mfa' | 'connector'): SecretBox {
  if (keys.length === 0) throw new Error(`at least one key is required to encrypt ${purpose} secrets`);
  const info = `identity-service ${purpose} secret v1`;
  const derived = keys.map((key) => {
    const material = Buffer.from(hkdfSync('sha256', Buffer.from(key, 'utf8'), Buffer.alloc(0), info, 32));
    return { kid: createHash('sha256').update(material).digest('base64url').slice(0, 12), material };
  });
  const [current] = derived as [(typeof derived)[number]];

  return {
    seal(plain, context) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', current.material, iv);
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return [
        VERSION,
        current.kid,
        iv.toString('base64url'),
        body.toString('base64url'),
        cipher.getAuthTag().toString('base64url'),
      ].join('.');
    },
    open(sealed, context) {
      const [version, kid, iv, body, tag] = sealed.split('.');
      const key = derived.find((candidate) => candidate.kid === kid);
      if (version !== VERSION || !key || iv === undefined || body === undefined || tag === undefined) return undefined;
      try {
        const decipher = createDecipheriv('aes-256-gcm', key.material, Buffer.from(iv, 'base64url'));
        decipher.setAAD(Buffer.from(context, 'utf8'));
        decipher.setAuthTag(Buffer.from(tag, 'base64url'));
        return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
      } catch {
        return undefined;
      }
    },
  };
}
