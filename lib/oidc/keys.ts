import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from 'jose';
import { DuplicateKeyError, type DocumentStore } from '../ports/documents.ts';
import { newId } from '../ids.ts';

export interface SigningKeys {
  /** Private JWKs for the provider, each with its `kid`. */
  keys: (JWK & { kid: string })[];
  /** The public halves, as served at /oidc/jwks. */
  publicKeys: { keys: JWK[] };
  /** The JWS algorithm of the first key, used for access and ID tokens: ES256 or EdDSA. */
  alg: 'ES256' | 'EdDSA';
}

const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k'] as const;

/** The JWS algorithm a key signs with: EdDSA for an OKP (Ed25519) key, ES256 for an EC (P-256) one. */
export function signingAlgOf(jwk: JWK): 'ES256' | 'EdDSA' {
  return jwk.kty === 'OKP' ? 'EdDSA' : 'ES256';
}

export function publicHalf(jwk: JWK): JWK {
  const copy: Record<string, unknown> = { ...jwk };
  for (const member of PRIVATE_MEMBERS) delete copy[member];
  return copy as JWK;
}

async function generateSigningKey(): Promise<JWK> {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const jwk = await exportJWK(privateKey);
  return { ...jwk, kid: newId(16), alg: 'ES256', use: 'sig' };
}

/** Validates operator-supplied keys: a JSON JWK set of private EC (P-256) or OKP (Ed25519) keys. */
export function parseConfiguredKeys(text: string): JWK[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error('SIGNING_KEYS must be a JSON web key set ({"keys":[...]})');
  }
  const keys = (parsed as { keys?: unknown }).keys;
  if (!Array.isArray(keys) || keys.length === 0) throw new Error('SIGNING_KEYS must contain at least one key');
  for (const key of keys as JWK[]) {
    const supported = (key.kty === 'EC' && key.crv === 'P-256') || (key.kty === 'OKP' && key.crv === 'Ed25519');
    if (!supported || typeof key.d !== 'string') {
      throw new Error('SIGNING_KEYS entries must be private EC P-256 (ES256) or OKP Ed25519 (EdDSA) keys');
    }
  }
  return keys as JWK[];
}

/**
 * Where the keys come from: configuration first; otherwise the store. In a persistent store they are
 * generated once and shared by every process (a concurrent first start loses the insert race and reads
 * the winner's); in embedded mode they live as long as the process.
 */
export async function loadSigningKeys(options: { configured?: string; store: DocumentStore }): Promise<SigningKeys> {
  let keys: JWK[];
  if (options.configured) {
    keys = parseConfiguredKeys(options.configured);
  } else {
    const collection = options.store.collection<{ _id: string; keys: JWK[]; createdAt: Date }>('signing_keys');
    const existing = await collection.findOne({ _id: 'current' });
    if (existing) {
      keys = existing.keys;
    } else {
      keys = [await generateSigningKey()];
      try {
        await collection.insertOne({ _id: 'current', keys, createdAt: new Date() });
      } catch (error) {
        if (!(error instanceof DuplicateKeyError)) throw error;
        keys = (await collection.findOne({ _id: 'current' }))!.keys;
      }
    }
  }
  // A configured key without a `kid` gets its RFC 7638 thumbprint, the `kid` the provider itself would give it, so that
  // the tokens' headers and the public keys the service verifies them with name it alike.
  const named = await Promise.all(
    keys.map(async (key) => ({ ...key, kid: key.kid ?? (await calculateJwkThumbprint(key)) })),
  );
  return { keys: named, publicKeys: { keys: named.map(publicHalf) }, alg: signingAlgOf(named[0]!) };
}
