import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/** `v1.<iv>.<ciphertext>.<tag>`, base64url parts: AES-256-GCM under a key derived from a cookie key. */
const VERSION = 'v1';

/**
 * Connector client secrets must be sent to the upstream, so they cannot be hashed: they are encrypted at rest
 * with AES-256-GCM under a key derived (HKDF-SHA256) from `COOKIE_KEYS`. The first key encrypts, every key
 * decrypts, so rotating cookie keys the usual way (prepend the new one, keep the old one listed) keeps stored
 * secrets readable; a key dropped from the list makes what it encrypted unreadable (re-enter those secrets).
 */
export function createSecretBox(cookieKeys: readonly string[]) {
  const keys = cookieKeys.map((key) => Buffer.from(hkdfSync('sha256', key, 'identity-service', 'connector-secrets', 32)));
  const [current] = keys;
  if (!current) throw new Error('at least one cookie key is needed to encrypt connector secrets');

  return {
    seal(plain: string): string {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', current, iv);
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return [VERSION, iv, body, cipher.getAuthTag()].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.');
    },
    /** The plain text, or undefined when no configured key opens it. */
    open(sealed: string): string | undefined {
      const [version, iv, body, tag] = sealed.split('.');
      if (version !== VERSION || iv === undefined || body === undefined || tag === undefined) return undefined;
      for (const key of keys) {
        try {
          const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
          decipher.setAuthTag(Buffer.from(tag, 'base64url'));
          return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
        } catch {
          // Another key, or tampered: try the next one.
        }
      }
      return undefined;
    },
  };
}

export type SecretBox = ReturnType<typeof createSecretBox>;

/** What responses show of a secret: never the secret, only its last four characters to tell secrets apart. */
export function maskSecret(secret: string): string {
  return `********${secret.length > 12 ? secret.slice(-4) : ''}`;
}
