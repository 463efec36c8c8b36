/**
 * A software passkey for API tests: an ES256 key pair answering WebAuthn ceremonies the way a browser and an
 * authenticator do together (`none` attestation, a counting authenticator), so tests can also answer them as a
 * browser never would: from another origin, twice, or with a counter that went back.
 */
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';

const b64url = (bytes: Uint8Array | Buffer) => Buffer.from(bytes).toString('base64url');
const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();

export interface CeremonyOptions {
  challenge: string;
  rp?: { id: string };
  rpId?: string;
}

export class SoftPasskey {
  readonly credentialId = b64url(randomBytes(16));
  readonly #privateKey: KeyObject;
  readonly #publicKey: KeyObject;
  counter = 0;
  readonly origin: string;

  constructor(origin: string) {
    this.origin = origin;
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    this.#privateKey = privateKey;
    this.#publicKey = publicKey;
  }

  #clientData(type: string, challenge: string, origin: string): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
  }

  #authData(rpId: string, flags: number, attested?: Buffer): Buffer {
    const counter = Buffer.alloc(4);
    counter.writeUInt32BE(this.counter);
    return Buffer.concat([sha256(rpId), Buffer.from([flags]), counter, ...(attested ? [attested] : [])]);
  }

  /** The answer to `navigator.credentials.create(options)`, in Logto's payload shape. */
  register(options: CeremonyOptions, origin = this.origin) {
    const jwk = this.#publicKey.export({ format: 'jwk' });
    const cose = isoCBOR.encode(
      new Map<number, number | Uint8Array>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, Buffer.from(jwk.x!, 'base64url')],
        [-3, Buffer.from(jwk.y!, 'base64url')],
      ]),
    );
    const id = Buffer.from(this.credentialId, 'base64url');
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(id.length);
    const attested = Buffer.concat([Buffer.alloc(16), idLength, id, Buffer.from(cose)]);
    // User present, user verified, attested credential data included.
    const authData = this.#authData(options.rp!.id, 0x45, attested);
    const attestationObject = isoCBOR.encode(
      new Map<string, string | Map<string, string> | Uint8Array>([
        ['fmt', 'none'],
        ['attStmt', new Map<string, string>()],
        ['authData', authData],
      ]),
    );
    return {
      type: 'WebAuthn',
      id: this.credentialId,
      rawId: this.credentialId,
      response: {
        clientDataJSON: b64url(this.#clientData('webauthn.create', options.challenge, origin)),
        attestationObject: b64url(attestationObject),
        transports: ['internal'],
      },
      clientExtensionResults: {},
    };
  }

  /** The answer to `navigator.credentials.get(options)`; each one counts one use of the authenticator. */
  assert(options: CeremonyOptions, origin = this.origin) {
    this.counter += 1;
    const authData = this.#authData(options.rpId!, 0x05);
    const clientDataJSON = this.#clientData('webauthn.get', options.challenge, origin);
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), this.#privateKey);
    return {
      type: 'WebAuthn',
      id: this.credentialId,
      rawId: this.credentialId,
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
      },
      clientExtensionResults: {},
    };
  }
}
