import type Provider from 'oidc-provider';
import type { EventBus } from '../events/bus.ts';
import type { OperationEvents } from '../events/operation.ts';
import type { KeyValueStore } from '../ports/kv.ts';
import type { ApplicationsRepository } from '../applications/repository.ts';
import type { UsersRepository } from '../users/repository.ts';
import type { OrganizationJitLibrary } from '../organizations/jit.ts';
import type { Lockout } from '../sign-in/lockout.ts';
import type { UsersLibrary } from '../users/library.ts';
import type { Messaging } from '../messaging/index.ts';
import type { SignInExperienceLibrary } from '../sign-in-experience/library.ts';
import type { ConnectorsLibrary } from '../connectors/library.ts';
import type { IdentitiesLibrary } from '../connectors/identities.ts';
import type { Upstreams } from '../connectors/upstream.ts';
import type { MfaLibrary } from '../mfa/library.ts';
import type { Passkeys } from '../mfa/webauthn.ts';

/** What the experience library is built from: everything hangs off the service instance. */
export interface ExperienceDeps {
  provider: Provider;
  kv: KeyValueStore;
  bus: EventBus;
  /** Collects what the libraries change during a step, to publish it with the flow's context. */
  operations: Pick<OperationEvents, 'collect'>;
  repositories: { applications: ApplicationsRepository; users: UsersRepository };
  users: UsersLibrary;
  organizationJit: OrganizationJitLibrary;
  signInExperience: Pick<SignInExperienceLibrary, 'get' | 'assertPassword'>;
  messaging: Pick<Messaging, 'sendCode' | 'verifyCode'>;
  /** The service's one lockout, shared with the Account API: a subject's failures count in both. */
  lockout: Lockout;
  /** Social and enterprise connectors, the identities they link, and the upstreams they talk to. */
  connectors: ConnectorsLibrary;
  identities: IdentitiesLibrary;
  upstreams: Upstreams;
  /** Users' second factors: proved, set up and stored by the experience's MFA step. */
  mfa: MfaLibrary;
  /** Passkeys (WebAuthn): their challenges, checks and storage. */
  passkeys: Passkeys;
  /** Public URL of the service, mount prefix included. */
  baseUrl: string;
}
