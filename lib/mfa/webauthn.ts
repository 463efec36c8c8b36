import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { errors, unique } from '../errors.ts';
import { newId } from '../ids.ts';
import type { KeyValueStore } from '../ports/kv.ts';
import type { MfaRepository } from './repository.ts';
import type { UsersRepository } from '../users/repository.ts';
import type { User } from '../users/repository.ts';
import { accountLabel, touchedUser } from './library.ts';
import type { EmitData } from '../events/operation.ts';
import type { WebAuthnFactor } from './repository.ts';

/** Loaded with the first ceremony: the WebAuthn library and its parsers weigh about 20 MB an instance need not hold. */
const webauthn = () => import('@simplewebauthn/server');
type SimpleWebAuthn = Awaited<ReturnType<typeof webauthn>>;

/**
 * Who the passkeys belong to (WebAuthn's relying party): the host of BASE_URL is the RP ID, its origin the origin a
 * ceremony comes from (beside the account center's related origins). A passkey registered under one RP ID never
 * works under another, so BASE_URL must be the public address users' browsers see (behind a proxy: the public one,
 * with TRUST_PROXY).
 */
export interface RelyingParty {
  id: string;
  name: string;
  origin: string;
}

export function relyingPartyOf(baseUrl: string): RelyingParty {
  const url = new URL(baseUrl);
  // An IPv6 host keeps its brackets in `hostname`; no browser accepts an IP as RP ID anyway.
  return { id: url.hostname, name: url.host, origin: url.origin };
}

/** How long a challenge can be answered: the browser's prompt times out first (`timeout` of the options). */
const CHALLENGE_TTL_MS = 5 * 60_000;
const PROMPT_TIMEOUT_MS = 3 * 60_000;
/** EdDSA, ES256, RS256: what authenticators use; not the library's experimental post-quantum default. */
const ALGORITHMS = [-8, -7, -257];

type Ceremony = 'registration' | 'authentication';
const challengeKey = (ceremony: Ceremony, handle: string) => `webauthn:challenge:${ceremony}:${handle}`;
/** A verified registration of the Account API, waiting for `POST /my-account/mfa-verifications`. */
const registeredKey = (userId: string, handle: string) => `webauthn:registered:${userId}:${handle}`;

/** A credential whose registration verified, waiting to be stored (at submit, or when the Account API binds it). */
export interface NewCredential {
  credentialId: string;
  publicKey: string;
  counter: number;
  transports: string[];
}

const transportsOf = (factor: WebAuthnFactor) => factor.transports;

const failed = (why: string) =>
  errors.experience('session.mfa.webauthn_verification_failed', `the passkey could not be verified: ${why}`);
const noChallenge = () =>
  errors.experience(
    'session.mfa.pending_info_not_found',
    'no open passkey challenge for this verification: it was answered already or expired; ask for a new one',
  );

/**
 * Passkeys as a second factor (`@simplewebauthn/server`). Each ceremony's challenge is kept in the key-value store
 * under the verification that asked for it, for five minutes, and taken (read and deleted in one step) by the
 * answer: a challenge is answered once, so a replayed assertion or attestation finds none. The signature counter
 * only moves forward, in one conditional update, so of two uses of one counter value only one is accepted.
 */
export function createPasskeys(deps: {
  kv: KeyValueStore;
  repositories: { users: UsersRepository; mfaVerifications: MfaRepository };
  relyingParty: RelyingParty;
  /**
   * WebAuthn related origins (the account center's `webauthnRelatedOrigins`): other sites whose pages use these
   * passkeys under the same RP ID; their ceremonies are accepted too.
   */
  relatedOrigins?: () => Promise<readonly string[]>;
  emit: EmitData;
}) {
  const { kv, relyingParty: rp } = deps;
  const factors = deps.repositories.mfaVerifications;
  const expectedOrigins = async () => [rp.origin, ...((await deps.relatedOrigins?.()) ?? [])];

  async function passkeysOf(userId: string): Promise<WebAuthnFactor[]> {
    return (await factors.listOf(userId)).filter((factor): factor is WebAuthnFactor => factor.type === 'WebAuthn');
  }

  async function remember(ceremony: Ceremony, handle: string, userId: string, challenge: string): Promise<void> {
    await kv.set(challengeKey(ceremony, handle), JSON.stringify({ userId, challenge }), CHALLENGE_TTL_MS);
  }

  /** The challenge `handle` was given, taken out of the store; refused when it is gone or was another user's. */
  async function take(ceremony: Ceremony, handle: string, userId: string): Promise<string> {
    const stored = await kv.getDel(challengeKey(ceremony, handle));
    if (stored === null) throw noChallenge();
    const { userId: owner, challenge } = JSON.parse(stored) as { userId: string; challenge: string };
    if (owner !== userId) throw noChallenge();
    return challenge;
  }

  const touched = (userId: string) => touchedUser(deps, userId);

  return {
    relyingParty: rp,
    challengeTtlMs: CHALLENGE_TTL_MS,
    passkeysOf,

    /** Options for `navigator.credentials.create()`; the user's passkeys are excluded so one is not registered twice. */
    async registrationOptions(handle: string, user: User): Promise<PublicKeyCredentialCreationOptionsJSON> {
      const held = await passkeysOf(user.id);
      const label = accountLabel(user);
      const options = await (await webauthn()).generateRegistrationOptions({
        rpName: rp.name,
        rpID: rp.id,
        userID: new TextEncoder().encode(user.id),
        userName: label,
        userDisplayName: user.name ?? label,
        timeout: PROMPT_TIMEOUT_MS,
        attestationType: 'none',
        excludeCredentials: held.map((factor) => ({ id: factor.credentialId, transports: transportsOf(factor) })),
        authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' },
        supportedAlgorithmIDs: ALGORITHMS,
      });
      await remember('registration', handle, user.id, options.challenge);
      return options;
    },

    /** Checks the browser's answer to `registrationOptions(handle)`: the new credential, not stored yet. */
    async verifyRegistration(
      handle: string,
      userId: string,
      response: RegistrationResponseJSON,
    ): Promise<NewCredential> {
      const expectedChallenge = await take('registration', handle, userId);
      const expectedOrigin = await expectedOrigins();
      let verified: Awaited<ReturnType<SimpleWebAuthn['verifyRegistrationResponse']>>;
      try {
        verified = await (await webauthn()).verifyRegistrationResponse({
          response,
          expectedChallenge,
          expectedOrigin,
          expectedRPID: rp.id,
          requireUserVerification: false,
          supportedAlgorithmIDs: ALGORITHMS,
        });
      } catch (error) {
        throw failed((error as Error).message);
      }
      if (!verified.verified) throw failed('the attestation does not verify');
      const { credential } = verified.registrationInfo;
      if (await factors.findByCredentialId(credential.id)) throw failed('this passkey is registered already');
      return {
        credentialId: credential.id,
        publicKey: Buffer.from(credential.publicKey).toString('base64url'),
        counter: credential.counter,
        transports: response.response.transports ?? [],
      };
    },

    /** Options for `navigator.credentials.get()` naming the user's passkeys; 400 when they have none. */
    async authenticationOptions(handle: string, userId: string): Promise<PublicKeyCredentialRequestOptionsJSON> {
      const held = await passkeysOf(userId);
      if (held.length === 0) {
        throw errors.experience('session.mfa.webauthn_verification_not_found', 'this account has no passkey');
      }
      const options = await (await webauthn()).generateAuthenticationOptions({
        rpID: rp.id,
        timeout: PROMPT_TIMEOUT_MS,
        userVerification: 'preferred',
        allowCredentials: held.map((factor) => ({ id: factor.credentialId, transports: transportsOf(factor) })),
      });
      await remember('authentication', handle, userId, options.challenge);
      return options;
    },

    /** Takes the challenge `authenticationOptions(handle)` gave, for `verifyAuthentication`: it can be answered once. */
    takeAuthenticationChallenge: (handle: string, userId: string) => take('authentication', handle, userId),

    /**
     * Checks an answer to a taken challenge with one of the user's passkeys, and moves its counter forward (a
     * counter not above the stored one means a cloned authenticator or a replay: refused).
     */
    async verifyAuthentication(
      userId: string,
      expectedChallenge: string,
      response: AuthenticationResponseJSON,
    ): Promise<WebAuthnFactor> {
      const factor = (await passkeysOf(userId)).find((candidate) => candidate.credentialId === response.id);
      if (!factor) throw failed("the credential is not one of this account's passkeys");
      const expectedOrigin = await expectedOrigins();
      let verified: Awaited<ReturnType<SimpleWebAuthn['verifyAuthenticationResponse']>>;
      try {
        verified = await (await webauthn()).verifyAuthenticationResponse({
          response,
          expectedChallenge,
          expectedOrigin,
          expectedRPID: rp.id,
          requireUserVerification: false,
          credential: {
            id: factor.credentialId,
            publicKey: Buffer.from(factor.publicKey, 'base64url'),
            counter: factor.counter,
            transports: transportsOf(factor),
          },
        });
      } catch (error) {
        throw failed((error as Error).message);
      }
      if (!verified.verified) throw failed('the signature does not verify');
      const advanced = await factors.advanceWebAuthnCounter(
        factor.id,
        factor.counter,
        verified.authenticationInfo.newCounter,
        Date.now(),
      );
      if (!advanced) throw failed('the signature counter did not move forward');
      return factor;
    },

    /**
     * Keeps a verified registration for `ttlMs` under its record id, until `spendRegistration` binds it (Account
     * API: verification record first, then the bind behind the identity gate).
     */
    async holdRegistration(
      handle: string,
      userId: string,
      credential: NewCredential & { agent?: string },
      ttlMs: number,
    ): Promise<void> {
      await kv.set(registeredKey(userId, handle), JSON.stringify(credential), ttlMs);
    },

    /** The registration `holdRegistration` kept for this user, taken out (a record binds one passkey, once); or null. */
    async spendRegistration(handle: string, userId: string): Promise<(NewCredential & { agent?: string }) | null> {
      // Keyed by the user too: another user's record id finds nothing, and takes nothing from its owner.
      const stored = await kv.getDel(registeredKey(userId, handle));
      return stored === null ? null : (JSON.parse(stored) as NewCredential & { agent?: string });
    },

    /** Stores a verified credential as one of the user's factors; answers it and the user (User.Data.Updated). */
    async add(userId: string, credential: NewCredential, details: { name?: string | null; agent?: string | null }) {
      const factor: WebAuthnFactor = {
        id: newId(),
        userId,
        type: 'WebAuthn',
        createdAt: Date.now(),
        lastUsedAt: null,
        ...credential,
        name: details.name ?? null,
        agent: details.agent?.slice(0, 512) ?? null,
      };
      await unique('mfa verification', 'credentialId', () => factors.insert(factor));
      return { factor, user: await touched(userId) };
    },

    /** Renames one of the user's passkeys; 404 when they have none with this id. */
    async rename(userId: string, id: string, name: string) {
      const factor = await factors.renameWebAuthn(userId, id, name);
      if (!factor) throw errors.notFound('mfa verification', id);
      return { factor, user: await touched(userId) };
    },
  };
}

export type Passkeys = ReturnType<typeof createPasskeys>;
