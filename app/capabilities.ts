import { createApplications, openApplicationRecords } from '../lib/applications/index.ts';
import { createConnectors, openConnectorRecords } from '../lib/connectors/index.ts';
import { createMfa, openMfaRecords } from '../lib/mfa/index.ts';
import { createOidcRevocation } from '../lib/oidc/revocation.ts';
import { createOrganizations, openOrganizationRecords } from '../lib/organizations/index.ts';
import type { EmitData } from '../lib/events/operation.ts';
import type { DocumentStore } from '../lib/ports/documents.ts';
import type { KeyValueStore } from '../lib/ports/kv.ts';
import { createResources, openResourceRecords } from '../lib/resources/index.ts';
import { createRoles, openRoleRecords } from '../lib/roles/index.ts';
import { createSignInExperience, openSignInExperienceRecords } from '../lib/sign-in-experience/index.ts';
import { createUsers, openUserRecords } from '../lib/users/index.ts';
import type { Network } from '../lib/webhooks/destinations.ts';

/**
 * Every capability's records (its repositories), opened on one store. Only the composition root holds them all:
 * it hands each capability the records it joins on; routes and extensions see only the capabilities.
 */
export function openRecords(store: DocumentStore) {
  return {
    ...openApplicationRecords(store),
    ...openResourceRecords(store),
    ...openRoleRecords(store),
    ...openUserRecords(store),
    ...openOrganizationRecords(store),
    ...openSignInExperienceRecords(store),
    ...openConnectorRecords(store),
    ...openMfaRecords(store),
    /** Sessions, grants and tokens of node-oidc-provider, for ending a user's access. */
    oidcRevocation: createOidcRevocation(store),
  };
}

export type Records = ReturnType<typeof openRecords>;

/** Creates the indexes every repository relies on (idempotent). */
export async function prepareRecords(records: Records): Promise<void> {
  for (const repository of Object.values(records)) await repository.prepare();
}

/** The identity-data capabilities, each behind its door (`lib/<capability>/index.ts`). */
export function createCapabilities(
  records: Records,
  options: {
    /** How the libraries state the data events of what they change. */
    emit: EmitData;
    defaultAccessTokenTtl: number;
    /** TOTP secrets are encrypted under keys derived from these (MFA_SECRET_KEYS, else the cookie keys). */
    mfaSecretKeys: readonly string[];
    /** The service's public URL: authenticator apps list accounts under its host; passkeys belong to its host. */
    baseUrl: string;
    /** Passkey challenges wait here between the options and the browser's answer. */
    kv: KeyValueStore;
    /** Connector client secrets are encrypted under keys derived from these. */
    cookieKeys: readonly string[];
    allowedNetworks?: readonly Network[];
    endpointNetworks?: readonly Network[];
    outboundDeadlineMs: number;
    /** Origins beside the service's own that passkey ceremonies may come from (the account center's). */
    webauthnRelatedOrigins?: () => Promise<readonly string[]>;
  },
) {
  const signInExperience = createSignInExperience(records.signInExperience);
  return {
    applications: createApplications(records),
    users: createUsers({ ...records, emit: options.emit }, signInExperience),
    roles: createRoles({ ...records, emit: options.emit }),
    resources: createResources({ ...records, emit: options.emit }, options),
    organizations: createOrganizations(records, options.emit),
    signInExperience,
    connectors: createConnectors({
      records,
      cookieKeys: options.cookieKeys,
      allowedNetworks: options.allowedNetworks,
      endpointNetworks: options.endpointNetworks,
      outboundDeadlineMs: options.outboundDeadlineMs,
      emit: options.emit,
    }),
    mfa: createMfa({
      records,
      secretKeys: options.mfaSecretKeys,
      baseUrl: options.baseUrl,
      kv: options.kv,
      relatedOrigins: options.webauthnRelatedOrigins,
      emit: options.emit,
    }),
  };
}
