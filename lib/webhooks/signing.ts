import {
  createHmac,
  createPrivateKey,
  createPublicKey,
  createSecretKey,
  generateKeyPairSync,
  randomBytes,
  sign,
  type KeyObject,
} from 'node:crypto';
import { setBounded } from '../bounded-map.ts';

const KEY_PREFIX = 'whsec_';
/** Standard Webhooks' prefixes of an asymmetric (Ed25519) secret key and of its public key. */
const PRIVATE_KEY_PREFIX = 'whsk_';
const PUBLIC_KEY_PREFIX = 'whpk_';

/** How a hook's deliveries are signed: `hmac` (Standard Webhooks `v1`, and Logto's header) or `ed25519` (`v1a`). */
export const SIGNATURE_SCHEMES = ['hmac', 'ed25519'] as const;
export type SignatureScheme = (typeof SIGNATURE_SCHEMES)[number];

/** A Standard Webhooks secret: `whsec_` + base64 of 32 random bytes, usable as is by `new Webhook(key)`. */
export function generateSigningKey(scheme: SignatureScheme = 'hmac'): string {
  if (scheme === 'hmac') return KEY_PREFIX + randomBytes(32).toString('base64');
  // The private key as PKCS #8 DER: it stays with the service; consumers get the public key.
  const { privateKey } = generateKeyPairSync('ed25519');
  return PRIVATE_KEY_PREFIX + privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64');
}

/** Ed25519 keys whose KeyObjects are kept (parsing one costs more than a signature). */
const keptPrivateKeys = new Map<string, KeyObject>();

function ed25519Key(signingKey: string): KeyObject {
  let key = keptPrivateKeys.get(signingKey);
  if (key) return key;
  key = createPrivateKey({
    key: Buffer.from(signingKey.slice(PRIVATE_KEY_PREFIX.length), 'base64'),
    format: 'der',
    type: 'pkcs8',
  });
  setBounded(keptPrivateKeys, signingKey, key, MAX_KEPT_KEYS);
  return key;
}

export function isEd25519Key(signingKey: string): boolean {
  return signingKey.startsWith(PRIVATE_KEY_PREFIX);
}

/** The public key of an Ed25519 signing key, as Standard Webhooks spells it: `whpk_` + base64 of its 32 bytes. */
export function publicKeyOf(signingKey: string): string {
  const jwk = createPublicKey(ed25519Key(signingKey)).export({ format: 'jwk' });
  return PUBLIC_KEY_PREFIX + Buffer.from(jwk.x!, 'base64url').toString('base64');
}

export interface SignatureInput {
  /** The delivery id, stable across retries. */
  deliveryId: string;
  /** Epoch seconds of this attempt. */
  timestamp: number;
  /** The exact request body that will be sent. */
  body: string;
  /** Current key first, then previous keys still in their rotation grace period. */
  signingKeys: readonly string[];
}

export interface SignatureHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
  /** HMAC keys only: Logto's signature needs the shared secret. */
  'logto-signature-sha-256'?: string;
}

/** Signing keys whose HMAC keys are kept, the oldest made forgotten first. */
const MAX_KEPT_KEYS = 1000;
const keptKeys = new Map<string, { standard: KeyObject; logto: KeyObject }>();

/**
 * The HMAC keys of a `whsec_` secret: its decoded bytes (Standard Webhooks) and the string itself as UTF-8
 * (Logto). KeyObjects, because HMAC with a Buffer or string key costs several times more; kept, because making
 * one costs about as much as the signature.
 */
function hmacKeys(signingKey: string): { standard: KeyObject; logto: KeyObject } {
  let keys = keptKeys.get(signingKey);
  if (keys) return keys;
  if (!signingKey.startsWith(KEY_PREFIX)) throw new Error(`Signing key must start with "${KEY_PREFIX}"`);
  keys = {
    standard: createSecretKey(Buffer.from(signingKey.slice(KEY_PREFIX.length), 'base64')),
    logto: createSecretKey(Buffer.from(signingKey, 'utf8')),
  };
  setBounded(keptKeys, signingKey, keys, MAX_KEPT_KEYS);
  return keys;
}

export function signatureHeaders({ deliveryId, timestamp, body, signingKeys }: SignatureInput): SignatureHeaders {
  const [currentKey] = signingKeys;
  if (currentKey === undefined) throw new Error('At least one signing key is required');
  const seconds = String(Math.floor(timestamp));
  const signedContent = `${deliveryId}.${seconds}.${body}`;
  // One signature per key lets consumers verify with either the old or the new key during rotation.
  const signatures = signingKeys.map((key) =>
    isEd25519Key(key)
      ? `v1a,${sign(null, Buffer.from(signedContent, 'utf8'), ed25519Key(key)).toString('base64')}`
      : `v1,${createHmac('sha256', hmacKeys(key).standard).update(signedContent, 'utf8').digest('base64')}`,
  );
  const headers: SignatureHeaders = {
    'webhook-id': deliveryId,
    'webhook-timestamp': seconds,
    'webhook-signature': signatures.join(' '),
  };
  if (isEd25519Key(currentKey)) return headers;
  // Logto keys its HMAC with the key string itself (a string key is taken as UTF-8), not the decoded bytes.
  headers['logto-signature-sha-256'] = createHmac('sha256', hmacKeys(currentKey).logto)
    .update(body, 'utf8')
    .digest('hex');
  return headers;
}
