import type { DocumentStore } from '../ports/documents.ts';
import type { EmitData } from '../events/operation.ts';
import type { KeyValueStore } from '../ports/kv.ts';
import type { OrganizationsRepository } from '../organizations/repository.ts';
import { createSecretBox } from '../secret-box.ts';
import type { UsersRepository } from '../users/repository.ts';
import { createMfaLibrary } from './library.ts';
import { createMfaRepository } from './repository.ts';
import { createPasskeys, relyingPartyOf } from './webauthn.ts';

export function openMfaRecords(store: DocumentStore) {
  return { mfaVerifications: createMfaRepository(store) };
}

/** Users' second factors (TOTP, backup codes) and their passkeys (WebAuthn). */
export function createMfa(deps: {
  records: ReturnType<typeof openMfaRecords> & { users: UsersRepository; organizations: OrganizationsRepository };
  /** TOTP secrets are encrypted under keys derived from these (MFA_SECRET_KEYS, else the cookie keys). */
  secretKeys: readonly string[];
  /** The service's public URL: authenticator apps list accounts under its host; passkeys belong to its host. */
  baseUrl: string;
  /** Passkey challenges wait here between the options and the browser's answer. */
  kv: KeyValueStore;
  /** Origins beside the service's own that passkey ceremonies may come from (the account center's). */
  relatedOrigins?: () => Promise<readonly string[]>;
  /** How the libraries state the User.Data.Updated of a change to a user's factors. */
  emit: EmitData;
}) {
  return {
    ...createMfaLibrary({
      repositories: deps.records,
      box: createSecretBox(deps.secretKeys, 'mfa'),
      issuer: deps.baseUrl,
      emit: deps.emit,
    }),
    passkeys: createPasskeys({
      kv: deps.kv,
      repositories: deps.records,
      relyingParty: relyingPartyOf(deps.baseUrl),
      relatedOrigins: deps.relatedOrigins,
      emit: deps.emit,
    }),
  };
}

export type Mfa = ReturnType<typeof createMfa>;
