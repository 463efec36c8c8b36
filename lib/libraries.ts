import { createApplicationsLibrary } from './applications/library.ts';
import { createOrganizationInvitationsLibrary } from './organizations/invitations.ts';
import { createOrganizationTemplateLibrary } from './organizations/template.ts';
import { createOrganizationsLibrary } from './organizations/library.ts';
import { createOrganizationJitLibrary } from './organizations/jit.ts';
import type { Repositories } from './repositories.ts';
import { createUsersLibrary } from './users/library.ts';
import { createSignInExperienceLibrary } from './sign-in-experience/library.ts';
import { createRolesLibrary } from './roles/library.ts';
import { createResourcesLibrary } from './resources/library.ts';
import { createConnectorsLibrary } from './connectors/library.ts';
import { createIdentitiesLibrary } from './connectors/identities.ts';
import { createOutbound } from './connectors/outbound.ts';
import { createUpstreams } from './connectors/upstream.ts';
import type { Network } from './webhooks/destinations.ts';
import { createMfaLibrary } from './mfa/library.ts';
import { createSecretBox } from './secret-box.ts';
import { createPasskeys, relyingPartyOf } from './mfa/webauthn.ts';
import type { KeyValueStore } from './ports/kv.ts';

/** Domain logic above the repositories, shared by routes and extensions. */
export function createLibraries(
  repositories: Repositories,
  options: {
    defaultAccessTokenTtl: number;
    /** TOTP secrets are encrypted under keys derived from these (MFA_SECRET_KEYS, else the cookie keys). */
    mfaSecretKeys: readonly string[];
    /** The service's public URL: authenticator apps list accounts under its host; passkeys belong to its host. */
    baseUrl: string;
    /** Passkey challenges wait here between the options and the browser's answer. */
    kv: KeyValueStore;
    /** Origins beside the service's own that passkey ceremonies may come from (the account center's). */
    webauthnRelatedOrigins?: () => Promise<readonly string[]>;
    /** Connector client secrets are encrypted under keys derived from these. */
    cookieKeys: readonly string[];
    /** Non-public networks the connector upstreams an operator configures may be reached on (beyond loopback). */
    allowedNetworks?: readonly Network[];
    /** Networks a non-public issuer's discovery document may name endpoints on, beyond its own origin. */
    endpointNetworks?: readonly Network[];
    /** The total deadline of one request to an upstream, ms. */
    outboundDeadlineMs: number;
  },
) {
  const signInExperience = createSignInExperienceLibrary(repositories.signInExperience);
  const upstreams = createUpstreams(
    createOutbound({
      allowedNetworks: options.allowedNetworks,
      endpointNetworks: options.endpointNetworks,
      deadlineMs: options.outboundDeadlineMs,
    }),
  );
  return {
    applications: createApplicationsLibrary(repositories),
    users: createUsersLibrary(repositories, signInExperience),
    roles: createRolesLibrary(repositories),
    resources: createResourcesLibrary(repositories, options),
    organizations: createOrganizationsLibrary(repositories),
    organizationTemplate: createOrganizationTemplateLibrary(repositories),
    organizationInvitations: createOrganizationInvitationsLibrary(repositories),
    organizationJit: createOrganizationJitLibrary(repositories),
    signInExperience,
    connectors: createConnectorsLibrary({
      ...repositories,
      secrets: createSecretBox(options.cookieKeys, 'connector'),
      upstreams,
    }),
    identities: createIdentitiesLibrary(repositories),
    upstreams,
    mfa: createMfaLibrary({
      repositories,
      box: createSecretBox(options.mfaSecretKeys, 'mfa'),
      issuer: options.baseUrl,
    }),
    passkeys: createPasskeys({
      kv: options.kv,
      repositories,
      relyingParty: relyingPartyOf(options.baseUrl),
      relatedOrigins: options.webauthnRelatedOrigins,
    }),
  };
}

export type Libraries = ReturnType<typeof createLibraries>;
