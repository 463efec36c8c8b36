import type Provider from 'oidc-provider';
import type { Logger } from 'pino';
import type { Authorization } from './roles/authorization.ts';
import type { EventBus } from './events/bus.ts';
import type { EventLog } from './events/event-log.ts';
import type { DocumentStore } from './ports/documents.ts';
import type { KeyValueStore } from './ports/kv.ts';
import type { Applications } from './applications/index.ts';
import type { Connectors } from './connectors/index.ts';
import type { Mfa } from './mfa/index.ts';
import type { Organizations } from './organizations/index.ts';
import type { Resources } from './resources/index.ts';
import type { Roles } from './roles/index.ts';
import type { SignInExperienceSettings } from './sign-in-experience/index.ts';
import type { Users } from './users/index.ts';
import type { Settings } from './settings.ts';
import type { Impersonation } from './impersonation/library.ts';
import type { Webhooks } from './webhooks/index.ts';
import type { Messaging } from './messaging/index.ts';
import type { Experience } from './experience/index.ts';
import type { Account } from './account/index.ts';
import type { Metrics } from './metrics/registry.ts';
import type { RateLimits } from './rate-limits/index.ts';
import type { ConsoleAdmins } from './console/admins.ts';

/**
 * What a service instance is made of, handed to the route modules (the extensions receive only the parts they
 * name). Nothing here is global: two instances in one process share nothing.
 */
export interface ServiceCore {
  settings: Settings;
  logger: Logger;
  store: DocumentStore;
  kv: KeyValueStore;
  bus: EventBus;
  /** The numbered, retained events: `GET /api/events`. */
  events: EventLog;
  authorization: Authorization;
  provider: Provider;
  applications: Applications;
  resources: Resources;
  roles: Roles;
  users: Users;
  organizations: Organizations;
  signInExperience: SignInExperienceSettings;
  connectors: Connectors;
  mfa: Mfa;
  impersonation: Impersonation;
  webhooks: Webhooks;
  /** Verification codes, invitation emails and the per-recipient send limit. */
  messaging: Messaging;
  /** End-user sign-in, registration and password reset: the Experience API and the sign-in pages act through it. */
  experience: Experience;
  /** The Account API: end users' own access tokens, verification records, the gate and the account center. */
  account: Account;
  /** The instance's Prometheus registry and instruments (`GET /metrics`). */
  metrics: Metrics;
  /** Failed-authentication and subject-token limits. */
  rateLimits: RateLimits;
  /** Console admins: the configured one, and the first-admin setup link. */
  consoleAdmins: ConsoleAdmins;
}
