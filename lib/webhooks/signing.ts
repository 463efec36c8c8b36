import { createHmac, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';
import { setBounded } from '../bounded-map.ts';

const KEY_PREFIX = 'whsec_';

/** A Standard Webhooks secret: `whsec_` + base64 of 32 random bytes, usable as is by `new Webhook(key)`. */
export function generateSigningKey(): string {
  return KEY_PREFIX + randomBytes(32).toString('base64');
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
  'logto-signature-sha-256': string;
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
  const signatures = signingKeys.map(
    (key) => `v1,${createHmac('sha256', hmacKeys(key).standard).update(signedContent, 'utf8').digest('base64')}`,
  );
  return {
    'webhook-id': deliveryId,
    'webhook-timestamp': seconds,
    'webhook-signature': signatures.join(' '),
    // Logto keys its HMAC with the key string itself (a string key is taken as UTF-8), not the decoded bytes.
    'logto-signature-sha-256': createHmac('sha256', hmacKeys(currentKey).logto).update(body, 'utf8').digest('hex'),
  };
}
