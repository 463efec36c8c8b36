import { createPublicKey, webcrypto, type JsonWebKey, type KeyObject } from 'node:crypto';
import { ExternalSigningKey } from 'oidc-provider';
import type { JWK } from 'jose';
import { publicHalf, signingAlgOf } from './keys.ts';

/** How WebCrypto imports a key of each JWS algorithm, and signs with it. */
const WEBCRYPTO = {
  ES256: { key: { name: 'ECDSA', namedCurve: 'P-256' }, sign: { name: 'ECDSA', hash: 'SHA-256' } },
  EdDSA: { key: { name: 'Ed25519' }, sign: { name: 'Ed25519' } },
} as const;

/**
 * One of the service's private keys as the provider's signing key. The provider hands it the JWS signing input and
 * builds the token around the signature; the key signs with WebCrypto directly, which costs the event loop a third
 * less per token than the provider's own path through jose, which checks the header, the key and its algorithm on
 * every signature (bench/README.md). The private half stays a non-extractable CryptoKey; the public half is the
 * KeyObject the provider publishes and verifies its own tokens with.
 */
class ServiceSigningKey extends ExternalSigningKey {
  readonly #kid: string;
  readonly #alg: 'ES256' | 'EdDSA';
  readonly #public: KeyObject;
  readonly #private: webcrypto.CryptoKey;

  constructor(jwk: JWK & { kid: string }, alg: 'ES256' | 'EdDSA', privateKey: webcrypto.CryptoKey) {
    super();
    this.#kid = jwk.kid;
    this.#alg = alg;
    this.#public = createPublicKey({ key: publicHalf(jwk) as JsonWebKey, format: 'jwk' });
    this.#private = privateKey;
  }

  override get kid(): string {
    return this.#kid;
  }

  override get alg(): string {
    return this.#alg;
  }

  override keyObject(): KeyObject {
    return this.#public;
  }

  override async sign(data: Uint8Array): Promise<Uint8Array> {
    return Buffer.from(await webcrypto.subtle.sign(WEBCRYPTO[this.#alg].sign, this.#private, data));
  }
}

/** The keys (validated private EC P-256 or OKP Ed25519 JWKs with a `kid`) as the provider's signing keys. */
export async function providerSigningKeys(keys: (JWK & { kid: string })[]): Promise<ExternalSigningKey[]> {
  return Promise.all(
    keys.map(async (jwk) => {
      const alg = signingAlgOf(jwk);
      const privateKey = await webcrypto.subtle.importKey(
        'jwk',
        { ...jwk, key_ops: undefined, ext: undefined, alg: undefined, use: undefined } as webcrypto.JsonWebKey,
        WEBCRYPTO[alg].key,
        false,
        ['sign'],
      );
      return new ServiceSigningKey(jwk, alg, privateKey);
    }),
  );
}
